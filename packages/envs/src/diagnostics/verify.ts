import type { Claim, CountClaim, DistanceClaim, EntityRef, OnTargetClaim, OutcomeClaim, PositionClaim, RelationClaim } from './claims.js';
import { DELTA, describeOffset, entityName, fmtCell, sameCell, World, type Cell } from './world.js';

export type Verdict = 'supported' | 'contradicted' | 'uncheckable';

export interface Checked {
  verdict: Verdict;
  /** Why, in words: "box is at (3, 2), not (2, 2)". */
  evidence?: string;
}

export interface VerifyOptions {
  /** Coordinates in think texts count from this (0, like the grid_coord observation, by default). */
  coordinateBase?: 0 | 1;
  /** Moves the turn decided on (think, else answer): what "this pushes the box…" refers to. */
  decidedMoves?: string[];
}

const uncheckable = (evidence: string): Checked => ({ verdict: 'uncheckable', evidence });
const judged = (holds: boolean, negated: boolean, evidence: string): Checked =>
  holds !== negated ? { verdict: 'supported' } : { verdict: 'contradicted', evidence };

function label(e: EntityRef): string {
  return e.index ? `${entityName(e.type)} ${e.index}` : entityName(e.type);
}

function listCells(cells: Cell[]): string {
  return cells.length > 4 ? `${cells.slice(0, 4).map(fmtCell).join(', ')}, …` : cells.map(fmtCell).join(', ');
}

function candidates(w: World, e: EntityRef): Cell[] | Checked {
  if (!w.has(e.type)) return uncheckable(`there are no ${entityName(e.type)}s in this environment`);
  const all = w.positions(e.type);
  if (e.index && e.type === 'box' && e.index > all.length)
    return { verdict: 'contradicted', evidence: `there ${all.length === 1 ? 'is only 1 box' : `are only ${all.length} boxes`}` };
  if (e.which && all.length > 1 && e.type !== 'wall') {
    // "the lower box": the one farthest down, when one is
    const [axis, sign] = { up: [0, -1], down: [0, 1], left: [1, -1], right: [1, 1] }[e.which] as [0 | 1, number];
    const best = Math.max(...all.map((x) => x[axis] * sign));
    const chosen = all.filter((x) => x[axis] * sign === best);
    if (chosen.length !== 1) return uncheckable(`no single ${e.which}most ${entityName(e.type)}`);
    return chosen;
  }
  return all;
}

function checkPosition(w: World, c: PositionClaim, base: number): Checked {
  const checked = checkCell(w, c, base);
  // "the third column" read as index 3 would hold: which one is meant decides
  if (checked.verdict === 'contradicted' && c.ordinal) {
    const shifted: [number, number] = [c.cell[0] + 1, c.cell[1] + 1];
    if (checkCell(w, { ...c, cell: shifted }, base).verdict === 'supported')
      return uncheckable('ambiguous ordinal: true if counted from 0');
  }
  return checked;
}

function checkCell(w: World, c: PositionClaim, base: number): Checked {
  const axis = (v: number, size: number) => (v === Infinity ? size - 1 : v - base);
  const cell: Cell = [axis(c.cell[0], w.rows), axis(c.cell[1], w.cols)];
  const cells = candidates(w, c.entity);
  if (!Array.isArray(cells)) return cells;
  const at = (x: Cell) => (Number.isNaN(cell[0]) || x[0] === cell[0]) && (Number.isNaN(cell[1]) || x[1] === cell[1]);
  // "a wall in column 3": rows of walls are not looked up
  if (c.entity.type === 'wall' && (Number.isNaN(cell[0]) || Number.isNaN(cell[1])))
    return uncheckable('a wall along a whole row or column is not checked');
  const holds = c.entity.type === 'wall' ? w.isWall(cell) : cells.some(at);
  const name = label(c.entity);
  if (c.negated) return judged(holds, true, `there is a ${name} at ${fmtCell(cell)}`);
  if (!cells.length) return judged(false, false, `there is no ${name}`);
  if (c.entity.type === 'wall') return judged(holds, false, `${fmtCell(cell)} is not a wall`);
  const evidence =
    cells.length === 1
      ? `${name} is at ${fmtCell(cells[0]!)}, not ${fmtCell(cell)}`
      : `no ${name} at ${fmtCell(cell)}; ${name}s are at ${listCells(cells)}`;
  return judged(holds, false, evidence);
}

function checkOnTarget(w: World, c: OnTargetClaim, base: number): Checked {
  if (c.entity.type === 'player') {
    const p = w.positions('player')[0]!;
    return judged(
      w.isTarget(p),
      c.negated,
      w.isTarget(p) ? `the player at ${fmtCell(p)} is on a target` : `the player at ${fmtCell(p)} is not on a target`,
    );
  }
  let boxes = w.positions('box');
  if (c.cell) boxes = boxes.filter((b) => sameCell(b, [c.cell![0] - base, c.cell![1] - base]));
  if (!boxes.length) return uncheckable('no box at the named cell');
  const holds = boxes.some((b) => w.isTarget(b));
  return judged(
    holds,
    c.negated,
    holds ? `the box at ${fmtCell(boxes.find((b) => w.isTarget(b))!)} is on a target` : `no box there is on a target`,
  );
}

/** Does offset (dr, dc) of subject from reference satisfy the phrase? */
function satisfies(c: RelationClaim, [dr, dc]: Cell, impliedAdjacent: boolean): boolean {
  if (c.same === 'row' && dr !== 0) return false;
  if (c.same === 'column' && dc !== 0) return false;
  if (!c.parts.length) return c.adjacent ? Math.abs(dr) + Math.abs(dc) === 1 : dr !== 0 || dc !== 0 || !!c.same;
  let rowStated = false;
  let colStated = false;
  const exact = c.adjacent || c.direct || impliedAdjacent || c.parts.some((p) => p.dist !== undefined);
  for (const p of c.parts) {
    const vertical = p.dir === 'up' || p.dir === 'down';
    const v = vertical ? dr : dc;
    const sign = p.dir === 'down' || p.dir === 'right' ? 1 : -1;
    if (Math.sign(v) !== sign) return false;
    const dist = p.dist ?? (c.adjacent || c.direct || impliedAdjacent ? 1 : undefined);
    if (dist !== undefined && Math.abs(v) !== dist) return false;
    if (vertical) rowStated = true;
    else colStated = true;
  }
  const axisOnly = c.parts.every((p) => p.axisOnly) && !c.direct && !c.adjacent;
  if ((exact || c.direct) && !axisOnly) {
    if (!rowStated && dr !== 0) return false;
    if (!colStated && dc !== 0) return false;
  }
  return true;
}

/** "the box is left of the box": an object related to itself (a pronoun gone wrong) says nothing checkable. */
const selfRelation = (c: { subject: EntityRef; ref: EntityRef }) =>
  c.subject.type === c.ref.type &&
  !c.subject.plural &&
  !c.ref.plural &&
  (c.subject.index ?? 0) === (c.ref.index ?? 0) &&
  c.subject.which === c.ref.which;

/** The cells of both sides of a relation, or why it cannot be checked. */
function pairOf(w: World, c: { subject: EntityRef; ref: EntityRef }): { subjects: Cell[]; refs: Cell[] } | Checked {
  if (selfRelation(c)) return uncheckable(`a ${entityName(c.subject.type)} related to itself`);
  const subjects = candidates(w, c.subject);
  if (!Array.isArray(subjects)) return subjects;
  const refs = candidates(w, c.ref);
  if (!Array.isArray(refs)) return refs;
  return { subjects, refs };
}

function checkRelation(w: World, c: RelationClaim): Checked {
  if (c.after) {
    const path = w.simulate(c.after.map(capital));
    return checkRelation(path[path.length - 1] ?? w, { ...c, after: undefined });
  }
  const both = pairOf(w, c);
  if ('verdict' in both) return both;
  const { subjects, refs } = both;
  if (c.ref.type === 'wall') return uncheckable('relations to walls are not checked');
  // "a hole to the right", "a wall above me": the next cell that way
  const impliedAdjacent =
    (c.subject.type === 'wall' || c.subject.type === 'hole') && c.ref.type === 'player' && c.parts.length === 1 && !c.located;
  const pairs: [Cell, Cell][] = [];
  for (const s of subjects) for (const r of refs) if (!sameCell(s, r)) pairs.push([s, r]);
  // "walls to the left, right and above": each direction on its own
  // (a diagonal, "lower-left", is one place, not a list)
  const diagonal =
    c.parts.length === 2 && new Set(c.parts.map((p) => p.dir === 'up' || p.dir === 'down')).size === 2 && c.subject.type !== 'wall';
  const eachOnItsOwn =
    !diagonal &&
    (c.subject.type === 'wall' || c.subject.type === 'hole') &&
    c.parts.length > 1 &&
    !c.located &&
    c.parts.every((p) => p.dist === undefined);
  const holdsFor = (claim: RelationClaim, implied: boolean) =>
    pairs.some(([s, r]) => satisfies(claim, [s[0] - r[0], s[1] - r[1]], implied));
  const holds = eachOnItsOwn ? c.parts.every((p) => holdsFor({ ...c, parts: [p] }, true)) : holdsFor(c, impliedAdjacent);
  const sub = label(c.subject);
  const ref = c.ref.type === 'player' ? 'the player' : `the ${label(c.ref)}`;
  if (holds === !c.negated) return { verdict: 'supported' };
  // "a hole to the right" read as the next cell: when a farther one makes it true, the reading decides
  if (impliedAdjacent && holdsFor(c, false) === !c.negated && c.subject.type !== 'wall')
    return uncheckable(`ambiguous: true of a ${sub} farther ${c.parts[0]!.dir}, false of the next cell`);
  if (!subjects.length) return { verdict: 'contradicted', evidence: `there is no ${sub}` };
  if (c.subject.type === 'wall' || (c.subject.type === 'hole' && (impliedAdjacent || eachOnItsOwn))) {
    const r = refs[0]!;
    const around = (['up', 'down', 'left', 'right'] as const).filter((d) => {
      const cell: Cell = [r[0] + DELTA[d][0], r[1] + DELTA[d][1]];
      return c.subject.type === 'wall' ? w.isWall(cell) : subjects.some((s) => sameCell(s, cell));
    });
    return { verdict: 'contradicted', evidence: `${sub}s next to ${ref}: ${around.length ? around.join(', ') : 'none'}` };
  }
  const [s, r] = pairs.length ? nearest(pairs) : [subjects[0]!, refs[0]!];
  return { verdict: 'contradicted', evidence: `${sub} at ${fmtCell(s)} is ${describeOffset(r, s)} of ${ref} at ${fmtCell(r)}` };
}

function nearest(pairs: [Cell, Cell][]): [Cell, Cell] {
  return pairs.reduce((best, p) =>
    Math.abs(p[0][0] - p[1][0]) + Math.abs(p[0][1] - p[1][1]) < Math.abs(best[0][0] - best[1][0]) + Math.abs(best[0][1] - best[1][1])
      ? p
      : best,
  );
}

const capital = (m: string) => m.charAt(0).toUpperCase() + m.slice(1).toLowerCase();

/** What would happen after the moves, from the turn's state, without slipping. */
export function predictedOutcome(w: World, outcome: OutcomeClaim['outcome'], moves: string[]): { holds: boolean; evidence: string } {
  const path = w.simulate(moves.map(capital));
  const start = w.positions('player')[0]!;
  const what = `${moves.join(', ')} from ${fmtCell(start)}`;
  switch (outcome) {
    case 'blocked': {
      const after = path[0];
      const moved = !!after && !sameCell(after.positions('player')[0]!, start);
      return {
        holds: !moved,
        evidence: moved
          ? `${moves[0]} from ${fmtCell(start)} moves the player to ${fmtCell(after!.positions('player')[0]!)}`
          : `${moves[0]} from ${fmtCell(start)} is blocked`,
      };
    }
    case 'fall': {
      const holds = path.some((x) => x.inHole());
      return { holds, evidence: holds ? `${what} ends in a hole` : `${what} does not reach a hole` };
    }
    case 'reach_goal': {
      const holds = path.some((x) => x.onGoal());
      return { holds, evidence: holds ? `${what} reaches the goal` : `${what} does not reach the goal` };
    }
    case 'box_on_target': {
      const before = w.boxesOnTarget();
      const holds = path.some((x) => x.boxesOnTarget() > before);
      return { holds, evidence: holds ? `${what} puts a box on a target` : `${what} puts no box on a target` };
    }
    case 'push_box': {
      const boxes = JSON.stringify(w.positions('box'));
      const holds = path.some((x) => JSON.stringify(x.positions('box')) !== boxes);
      return { holds, evidence: holds ? `${what} pushes a box` : `${what} does not move any box` };
    }
    case 'reach_cell':
      throw new Error('reach_cell needs a cell: see reachCell');
  }
}

/** "Pushing the box down": the state with the player standing behind the (named) box, unless it already is. */
function behindBox(w: World, c: OutcomeClaim, move: string, base: number): World[] {
  const d = DELTA[move.toLowerCase() as keyof typeof DELTA];
  if (!d || w.snap.env !== 'sokoban') return [w];
  const player = w.positions('player')[0]!;
  const boxes = w.positions('box').filter((b) => !c.boxCell || sameCell(b, [c.boxCell[0] - base, c.boxCell[1] - base]));
  if (boxes.some((b) => sameCell(b, [player[0] + d[0], player[1] + d[1]]))) return [w];
  return boxes
    .filter((b) => {
      const behind: Cell = [b[0] - d[0], b[1] - d[1]];
      return !w.isWall(behind) && !w.positions('box').some((x) => sameCell(x, behind));
    })
    .map((box) => new World({ ...w.snap, player: [box[0] - d[0], box[1] - d[1]] }));
}

function checkCount(w: World, c: CountClaim, base: number): Checked {
  const cells = candidates(w, c.entity);
  if (!Array.isArray(cells)) return cells;
  const player = w.positions('player')[0]!;
  const axis = (v: number, size: number) => (v === Infinity ? size - 1 : v - base);
  const region = c.cell ? ([axis(c.cell[0], w.rows), axis(c.cell[1], w.cols)] as Cell) : null;
  const inside = (x: Cell) =>
    c.adjacent
      ? Math.abs(x[0] - player[0]) + Math.abs(x[1] - player[1]) === 1
      : !region || ((Number.isNaN(region[0]) || x[0] === region[0]) && (Number.isNaN(region[1]) || x[1] === region[1]));
  const n = cells.filter(inside).length;
  const where = c.adjacent ? ' next to the player' : region ? ` in ${fmtCell(region)}` : '';
  return judged(n === c.count, c.negated, `${n} ${entityName(c.entity.type)}${n === 1 ? '' : 's'}${where}, not ${c.count}`);
}

function checkDistance(w: World, c: DistanceClaim): Checked {
  const both = pairOf(w, c);
  if ('verdict' in both) return both;
  const { subjects, refs } = both;
  if (c.ref.type === 'wall' || c.subject.type === 'wall') return uncheckable('distances to walls are not checked');
  if (!subjects.length || !refs.length) return uncheckable(`no ${entityName(subjects.length ? c.ref.type : c.subject.type)}`);
  const dists = subjects.flatMap((s) => refs.map((r) => Math.abs(s[0] - r[0]) + Math.abs(s[1] - r[1])));
  return judged(
    dists.includes(c.dist),
    c.negated,
    `${label(c.subject)} is ${Math.min(...dists)} steps from the ${label(c.ref)}, not ${c.dist}`,
  );
}

/** "Right, Right gets me to (1, 3)", "pushing left puts the box at (3, 2)": where things end up. */
function reachCell(w: World, c: OutcomeClaim, moves: string[], base: number): { holds: boolean; evidence: string } {
  const axis = (v: number, size: number) => (v === Infinity ? size - 1 : v - base);
  const cell: Cell = [axis(c.cell![0], w.rows), axis(c.cell![1], w.cols)];
  const at = (x: Cell) => (Number.isNaN(cell[0]) || x[0] === cell[0]) && (Number.isNaN(cell[1]) || x[1] === cell[1]);
  const path = w.simulate(moves.map(capital));
  const last = path[path.length - 1] ?? w;
  const what = `${moves.join(', ')} from ${fmtCell(w.positions('player')[0]!)}`;
  const boxes = last.positions('box');
  const p = last.positions('player')[0]!;
  if (c.who === 'box') return { holds: boxes.some(at), evidence: `after ${what} the boxes are at ${listCells(boxes)}` };
  if (c.who === 'either')
    return { holds: at(p) || boxes.some(at), evidence: `${what} ends at ${fmtCell(p)}, boxes at ${listCells(boxes)}` };
  return { holds: at(p), evidence: `${what} ends at ${fmtCell(p)}` };
}

function checkOutcome(w: World, c: OutcomeClaim, opts: VerifyOptions): Checked {
  const moves = c.moves ?? opts.decidedMoves ?? [];
  if (!moves.length) return uncheckable('no move to predict from');
  if ((c.outcome === 'fall' || c.outcome === 'reach_goal') && w.snap.env !== 'frozenlake') return uncheckable('no holes or goal here');
  if ((c.outcome === 'box_on_target' || c.outcome === 'push_box') && w.snap.env !== 'sokoban') return uncheckable('no boxes here');
  const starts = c.pushesBox ? behindBox(w, c, moves[0]!, opts.coordinateBase ?? 0) : [w];
  if (!starts.length) return uncheckable('no box can be pushed that way');
  const results = starts.map((from) =>
    c.outcome === 'reach_cell' ? reachCell(from, c, moves, opts.coordinateBase ?? 0) : predictedOutcome(from, c.outcome, moves),
  );
  // "pushing the box down" with two boxes that could be meant: only a verdict they share counts
  if (results.some((r) => r.holds !== results[0]!.holds)) return uncheckable('ambiguous: depends on which box is pushed');
  return judged(results[0]!.holds, c.negated, results[0]!.evidence);
}

/** The verdict of one claim against the state the turn started from. */
export function verifyClaim(w: World, c: Claim, opts: VerifyOptions = {}): Checked {
  const base = opts.coordinateBase ?? 0;
  if (c.unsure) return uncheckable(c.unsure);
  switch (c.kind) {
    case 'count':
      return checkCount(w, c, base);
    case 'distance':
      return checkDistance(w, c);
    case 'position':
      return checkPosition(w, c, base);
    case 'on_target':
      return checkOnTarget(w, c, base);
    case 'relation':
      return checkRelation(w, c);
    case 'outcome':
      return checkOutcome(w, c, opts);
  }
}

/** A short name for the kind of claim, to count the most frequent contradictions: "box position", "hole right of player". */
export function claimPattern(c: Claim): string {
  const no = c.negated ? 'not: ' : '';
  switch (c.kind) {
    case 'position':
      return `${no}${entityName(c.entity.type)} position`;
    case 'on_target':
      return `${no}box on target`;
    case 'relation': {
      const how = c.same ? `same ${c.same} as` : c.parts.length ? `${c.parts.map((p) => p.dir).join('-')} of` : 'next to';
      return `${no}${entityName(c.subject.type)} ${how} ${entityName(c.ref.type)}`;
    }
    case 'outcome':
      return `${no}outcome: ${c.outcome.replace(/_/g, ' ')}`;
    case 'count':
      return `${no}${entityName(c.entity.type)} count`;
    case 'distance':
      return `${no}${entityName(c.subject.type)} distance to ${entityName(c.ref.type)}`;
  }
}
