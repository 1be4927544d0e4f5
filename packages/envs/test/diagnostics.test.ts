import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FrozenLakeEnv,
  SokobanEnv,
  diagnoseStoredRows,
  diagnoseTurn,
  EMPTY_TALLY,
  addTallies,
  diagnosticsMetrics,
  markTemplates,
  tallyMetrics,
  trajectoryTally,
  trajectoryFlags,
  type EnvSnapshot,
  type FrozenLakeSnapshot,
  type SokobanSnapshot,
  type TurnInput,
} from '../src/index.js';

/*
 * Sokoban seed 3:          FrozenLake seed 5:
 *   ######                   O_O_     holes (0,0) (0,2) (1,0)
 *   #____#                   OG__     goal (1,1)
 *   #__#O#  target (2,4)     ___P     player (2,3)
 *   #_X__#  box (3,2)        ____
 *   #_P__#  player (4,2)
 *   ######
 */
const sokoban = (seed = 3): SokobanSnapshot => {
  const e = new SokobanEnv();
  e.reset(seed);
  return e.snapshot();
};
const lake = (seed = 5): FrozenLakeSnapshot => {
  const e = new FrozenLakeEnv();
  e.reset(seed);
  return e.snapshot();
};

// what the reader reads and the verifier judges, every rule allowed to contradict (rule-gate.test.ts covers the gate)
function turn(before: EnvSnapshot, think: string, over: Partial<TurnInput> = {}): ReturnType<typeof diagnoseTurn> {
  return diagnoseTurn(
    {
      env: before.env,
      think,
      formatOk: true,
      answerActions: [],
      executed: [],
      effectiveCount: 0,
      before,
      after: null,
      ...over,
    },
    { ruleGate: false },
  );
}
const verdicts = (think: string, before: EnvSnapshot = sokoban()) => turn(before, think).claims.map((c) => [c.pattern, c.verdict]);

describe('grounding claims', () => {
  it('checks positions in every coordinate form', () => {
    expect(verdicts('Player at (4, 2). The box is at row 3, column 2. Target at r2c4.')).toEqual([
      ['player position', 'supported'],
      ['box position', 'supported'],
      ['target position', 'supported'],
    ]);
    const d = turn(sokoban(), 'The crate sits at [2, 2].');
    expect(d.claims[0]).toMatchObject({
      verdict: 'contradicted',
      evidence: 'box is at (3, 2), not (2, 2)',
      text: 'The crate sits at [2, 2]',
    });
    expect(verdicts('I am in row 3.')).toEqual([['player position', 'contradicted']]);
  });

  it('honours a one-based coordinate option', () => {
    const d = diagnoseTurn({
      env: 'sokoban',
      think: 'Player at (5, 3).',
      formatOk: true,
      answerActions: [],
      executed: [],
      effectiveCount: 0,
      before: sokoban(),
      after: null,
      coordinateBase: 1,
    });
    expect(d.claims[0]!.verdict).toBe('supported');
  });

  it('checks relative directions with synonyms, distances and references', () => {
    expect(verdicts('The box is above me. The crate lies north of the player. The box is one step up from me.')).toEqual([
      ['box up of player', 'supported'],
      ['box up of player', 'supported'],
      ['box up of player', 'supported'],
    ]);
    expect(verdicts('The box is two steps above me.')).toEqual([['box up of player', 'contradicted']]);
    expect(verdicts('The target is one row up and two columns right of the box.')).toEqual([['target up-right of box', 'supported']]);
    expect(verdicts('The target is in the same row as the box.')).toEqual([['target same row as box', 'contradicted']]);
    const d = turn(sokoban(), 'The box is to my left.');
    expect(d.claims[0]).toMatchObject({ verdict: 'contradicted', evidence: 'box at (3, 2) is 1 up of the player at (4, 2)' });
  });

  it('handles negations, the tricky negatives included', () => {
    expect(verdicts('The box is not left of me.')).toEqual([['not: box left of player', 'supported']]);
    expect(verdicts("The box isn't above me.")).toEqual([['not: box up of player', 'contradicted']]);
    expect(verdicts('There are no boxes next to me.')).toEqual([['not: box next to player', 'contradicted']]);
    expect(verdicts('No hole next to player.', lake())).toEqual([['not: hole next to player', 'supported']]);
  });

  it('reads holes, walls and the goal; adjacency for "a hole to the right"', () => {
    expect(verdicts('There is a hole directly above me. Below me is the outer wall.', lake())).toEqual([
      ['hole up of player', 'contradicted'],
      ['wall down of player', 'contradicted'],
    ]);
    expect(verdicts('There is a wall to my right. The goal is up and to the left.', lake())).toEqual([
      ['wall right of player', 'supported'],
      ['goal up-left of player', 'supported'],
    ]);
    expect(verdicts('Holes are at (0, 0), (0, 2) and (1, 0).', lake())).toEqual([
      ['hole position', 'supported'],
      ['hole position', 'supported'],
      ['hole position', 'supported'],
    ]);
  });

  it('checks predicted outcomes by simulating the move', () => {
    expect(verdicts('Moving right from here is blocked by a wall.')).toEqual([['outcome: blocked', 'contradicted']]);
    expect(verdicts('Pushing the box up twice will put it on the target.')).toEqual([['outcome: box on target', 'contradicted']]);
    expect(verdicts('Going left twice then up would land me on the goal.', lake())).toEqual([['outcome: reach goal', 'supported']]);
    expect(verdicts('Moving up leads straight into a hole.', lake())).toEqual([['outcome: fall', 'contradicted']]);
    expect(verdicts('Moving down is safe.', lake())).toEqual([['not: outcome: fall', 'supported']]);
  });

  it('reads the tiny model’s templates', () => {
    const think = 'Player at (2, 3). Goal at (1, 1), 1 up and 2 left. Hole 1 up at (1, 3). Plan: Left.';
    const d = turn(lake(), think);
    expect(d.claims.map((c) => [c.pattern, c.verdict])).toEqual([
      ['player position', 'supported'],
      ['goal position', 'supported'],
      ['goal up-left of player', 'supported'],
      ['hole up of player', 'contradicted'],
      ['hole position', 'contradicted'],
    ]);
    expect(d.decided).toEqual(['left']);
  });

  it('says "not checkable" for things the environment does not have, and finds no claims in filler', () => {
    expect(verdicts('There is a hole to the right.')).toEqual([['hole right of player', 'uncheckable']]);
    expect(verdicts('The goal is to push the box onto the target. Let me think.')).toEqual([]);
  });
});

describe('think–answer consistency', () => {
  const s = sokoban();
  it('compares the decided moves with the answer', () => {
    expect(turn(s, 'Plan: Up, Left.', { answerActions: ['Up', 'Left'] }).thinkAnswer).toBe('consistent');
    expect(turn(s, 'I will move left twice.', { answerActions: ['Left'] }).thinkAnswer).toBe('consistent');
    const d = turn(s, 'So I should go down.', { answerActions: ['Up'] });
    expect(d).toMatchObject({ thinkAnswer: 'mismatch', thinkAnswerEvidence: 'think decides down; the answer is up' });
    expect(turn(s, 'I must not go left.', { answerActions: ['Left'] }).thinkAnswer).toBe('mismatch');
    expect(turn(s, 'Moving up hits a wall.', { answerActions: ['Left'] }).thinkAnswer).toBe('unknown');
  });
  it('reads arm names for the bandit', () => {
    const arms = {
      env: 'bandit',
      arms: [
        { name: 'Dragon', risk: 'high' },
        { name: 'Turtle', risk: 'low' },
      ],
      chosen: null,
      reward: null,
      done: false,
      success: false,
    } as const;
    const think = 'Dragon sounds bold. Turtle sounds safe. I choose Turtle.';
    const base = {
      env: 'bandit',
      think,
      formatOk: true,
      executed: [],
      effectiveCount: 0,
      before: arms as EnvSnapshot,
      after: null,
      actionWords: ['Dragon', 'Turtle'],
    };
    expect(diagnoseTurn({ ...base, answerActions: ['Turtle'] }).thinkAnswer).toBe('consistent');
    expect(diagnoseTurn({ ...base, answerActions: ['Dragon'] }).thinkAnswer).toBe('mismatch');
  });
});

describe('outcome check against what the environment did', () => {
  it('flags a decided move that did nothing, and an expected push that did not happen', () => {
    const before = sokoban(7); // player (2,3) under the box (1,3), wall above the box
    const env = new SokobanEnv();
    env.reset(7);
    const r = env.step('Up');
    const after = env.snapshot();
    expect(r.actionEffective).toBe(false);
    const d = turn(before, 'I will push the box up.', { answerActions: ['Up'], executed: ['Up'], effectiveCount: 0, after });
    expect(d).toMatchObject({ outcome: 'mismatch', outcomeEvidence: 'think expected up to move the player; nothing moved' });
    const foreseen = turn(before, 'Moving up is blocked, the box hits the wall. I go up anyway.', {
      answerActions: ['Up'],
      executed: ['Up'],
      after,
    });
    expect(foreseen.outcome).toBe('match');
  });
  it('flags falling into a hole that the think did not foresee', () => {
    const env = new FrozenLakeEnv({ successRate: 1 });
    env.reset(5);
    const before = env.snapshot();
    env.step('Up'); // (1,3)
    env.step('Left'); // (1,2)
    const mid = env.snapshot();
    env.step('Up'); // (0,2): a hole
    const after = env.snapshot();
    expect(after.done && !after.success).toBe(true);
    const d = turn(mid, 'I will go up.', { answerActions: ['Up'], executed: ['Up'], effectiveCount: 1, after });
    expect(d.outcome).toBe('mismatch');
    expect(turn(before, 'I will go up.', { answerActions: ['Up'], executed: ['Up'], effectiveCount: 1, after: mid }).outcome).toBe('match');
  });
});

describe('template collapse, reasoning-free success and step metrics', () => {
  it('marks a think reused across different states and computes the distinct-think ratio', () => {
    const a = sokoban(3);
    const b = sokoban(1);
    const mk = (think: string, state: EnvSnapshot) => ({ think, state, diagnostics: turn(state, think) });
    const turns = [mk('I will go up.', a), mk('I will go up!', b), mk('I will go up.', a), mk('Box at (3, 3). Plan: Left.', b)];
    const ratio = markTemplates(turns);
    expect(turns.map((t) => t.diagnostics.template)).toEqual([true, true, true, false]);
    expect(ratio).toBe(1); // two thinks over two states
    const collapsed = [mk('Same.', a), mk('Same.', b)];
    expect(markTemplates(collapsed)).toBe(0.5);
  });
  it('flags trajectories and aggregates rates', () => {
    const s = sokoban();
    const bad = { success: false, turns: [turn(s, 'The box is below me. So I go up.', { answerActions: ['Down'] })] };
    const lucky = { success: true, turns: [turn(s, '', { answerActions: ['Up'] }), turn(s, 'ok', { answerActions: ['Up'] })] };
    expect(trajectoryFlags(bad)).toEqual(['hallucinated', 'think_answer_mismatch']);
    expect(trajectoryFlags(lucky)).toEqual(['reasoning_free_success']);
    const m = diagnosticsMetrics([bad, lucky], 0.5, 'train');
    expect(m).toMatchObject({
      'train/diag/hallucination_rate': 0.5,
      'train/diag/contradicted_claim_rate': 1,
      'train/diag/think_answer_mismatch_rate': 1,
      'train/diag/distinct_think_ratio': 0.5,
      'train/diag/reasoning_free_success_rate': 1,
    });
  });
  it('keeps step metrics as running sums: trajectories joining one at a time, or leaving, give the metrics of the whole batch', () => {
    const s = sokoban();
    const l = lake();
    const trajs = [
      { success: false, turns: [turn(s, 'The box is below me. So I go up.', { answerActions: ['Down'] })] },
      { success: true, turns: [turn(s, '', { answerActions: ['Up'] }), turn(s, 'ok', { answerActions: ['Up'] })] },
      {
        success: true,
        turns: [{ ...turn(l, 'I will go up.', { answerActions: ['Up'], executed: ['Up'], effectiveCount: 1 }), template: true }],
      },
      { success: false, turns: [] },
    ];
    const whole = diagnosticsMetrics(trajs, 0.75, 'val');
    const joined = trajs.reduce((sum, t) => addTallies(sum, trajectoryTally(t)), EMPTY_TALLY);
    expect(tallyMetrics(joined, 0.75, 'val')).toEqual(whole);
    expect(whole['val/diag/template_rate']).toBe(0.25);
    // one leaves: the sums are those of the batch without it
    const left = addTallies(joined, trajectoryTally(trajs[0]!), -1);
    expect(tallyMetrics(left, 0.75, 'val')).toEqual(diagnosticsMetrics(trajs.slice(1), 0.75, 'val'));
    expect(tallyMetrics(EMPTY_TALLY, 1, 'val')).toEqual({});
  });
  it('keeps a reply that broke the format out of the checks', () => {
    const d = diagnoseTurn({
      env: 'sokoban',
      think: 'The box is below me.',
      formatOk: false,
      answerActions: [],
      executed: [],
      effectiveCount: 0,
      before: sokoban(),
      after: null,
    });
    expect(d).toMatchObject({ claims: [], thinkAnswer: 'unknown', trivialThink: true });
  });
});

describe('a batch that new rows join', () => {
  const row = (state: EnvSnapshot, think: string, known?: unknown) => ({
    env: 'sokoban',
    success: false,
    finalSnapshot: null,
    turns: [{ think, formatOk: true, parsedActions: ['Up'], executed: ['Up'], effectiveCount: 1, snapshot: state, known }],
  });

  it("keeps a stored turn's diagnostics and judges only its template mark again", () => {
    const a = sokoban(3);
    const b = sokoban(1);
    const think = 'The box is at (3, 2). I will go up.';
    const alone = (state: EnvSnapshot) => diagnoseStoredRows([row(state, think)], 'train').results[0]!.turns[0]!;
    // what an earlier check stored, told apart from what this checker finds by one field and a contradiction
    const stored = { ...JSON.parse(JSON.stringify(alone(a))), thinkWords: 99, contradicted: 1 };
    const { results } = diagnoseStoredRows([row(a, think, stored), row(b, think)], 'train');
    expect(results[0]!.turns[0]).toEqual({ ...stored, template: true });
    expect(results[1]!.turns[0]).toEqual({ ...alone(b), template: true });
    expect(results[0]!.flags).toEqual(['hallucinated', 'template_collapse']);
  });

  it('checks a stored turn again when what is stored is not in the shape of its diagnostics', () => {
    const a = sokoban(3);
    const fresh = diagnoseStoredRows([row(a, 'I will go up.')], 'train').results[0]!.turns[0]!;
    for (const stored of [null, {}, 'text', { ...fresh, v: 2 }, { ...fresh, claims: 'none' }])
      expect(diagnoseStoredRows([row(a, 'I will go up.', stored)], 'train').results[0]!.turns[0]).toEqual(fresh);
  });
});

describe('the labelled set', () => {
  const load = (name: string) =>
    JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as {
      env: string;
      state: EnvSnapshot;
      think: string;
      contradicted: boolean;
    }[];
  const sets = {
    generated: load('reasoning-labelled'),
    handwritten: ['reasoning-handwritten', 'reasoning-handwritten-2', 'reasoning-handwritten-3'].flatMap(load),
  };
  for (const [name, set] of Object.entries(sets)) {
    it(`${name}: precision and recall of "contradicted" are each at least 0.9`, () => {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (const e of set) {
        const predicted = turn(e.state, e.think).contradicted > 0;
        if (predicted && e.contradicted) tp++;
        else if (predicted) fp++;
        else if (e.contradicted) fn++;
      }
      expect(set.length).toBeGreaterThanOrEqual(name === 'generated' ? 300 : 150);
      expect(tp / (tp + fp)).toBeGreaterThanOrEqual(0.9);
      expect(tp / (tp + fn)).toBeGreaterThanOrEqual(0.9);
    });
  }
});
