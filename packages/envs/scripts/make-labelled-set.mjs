#!/usr/bin/env node
// Writes test/fixtures/reasoning-labelled.json: think texts about real Sokoban and FrozenLake states,
// each built from facts that are true or false by construction, so every label comes from the state
// (computed here by plain grid look-ups), never from the checker under test. Phrasings mix the tiny
// model's templates with free-form English, synonyms, ordinals, 1-3 facts per text, and negations.
// Run after `npm run build -w @starpo/envs`: node packages/envs/scripts/make-labelled-set.mjs
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FrozenLakeEnv, Rng, SokobanEnv } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '../test/fixtures/reasoning-labelled.json');
const rng = new Rng(20261130);
const pick = (xs) => xs[rng.int(0, xs.length - 1)];
const NUM = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];

// ---- ground truth by look-up ----------------------------------------------------------------
const cells = (rows, ch) => rows.flatMap((row, r) => [...row].flatMap((x, c) => (x === ch ? [[r, c]] : [])));
const eq = (a, b) => a[0] === b[0] && a[1] === b[1];
const DIRS = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };
const OPP = { up: 'down', down: 'up', left: 'right', right: 'left' };
function dirsOf(from, to) {
  const dr = to[0] - from[0];
  const dc = to[1] - from[1];
  const out = [];
  if (dr) out.push([dr > 0 ? 'down' : 'up', Math.abs(dr)]);
  if (dc) out.push([dc > 0 ? 'right' : 'left', Math.abs(dc)]);
  return out;
}
function offCell([r, c], rows, cols) {
  // a different in-board cell
  for (;;) {
    const x = [rng.int(0, rows - 1), rng.int(0, cols - 1)];
    if (!(x[0] === r && x[1] === c)) return x;
  }
}

// ---- phrasings -------------------------------------------------------------------------------
const coord = ([r, c]) =>
  pick([`(${r}, ${c})`, `(${r},${c})`, `row ${r}, column ${c}`, `r${r}c${c}`, `[${r}, ${c}]`, `row ${r} col ${c}`, `(row ${r}, col ${c})`]);
const count = (n) => (rng.float() < 0.5 ? String(n) : (NUM[n] ?? String(n)));
const steps = (n) => `${count(n)} ${pick(n === 1 ? ['step', 'square', 'cell', 'tile'] : ['steps', 'squares', 'cells', 'tiles'])}`;

function posText(name, cell, self) {
  if (self)
    return pick([
      `I am at ${coord(cell)}`,
      `I'm standing at ${coord(cell)}`,
      `The player is at ${coord(cell)}`,
      `Player at ${coord(cell)}`,
      `My position is ${coord(cell)}`,
      `I am currently located at ${coord(cell)}`,
    ]);
  return pick([
    `${cap(name)} at ${coord(cell)}`,
    `The ${name} is at ${coord(cell)}`,
    `There is a ${name} at ${coord(cell)}`,
    `I see the ${name} located at ${coord(cell)}`,
    `The ${name} sits at ${coord(cell)}`,
    `At ${coord(cell)} there is a ${name}`,
  ]);
}
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

const NEAR = {
  up: ['above', 'north of', 'up from'],
  down: ['below', 'south of', 'beneath', 'down from'],
  left: ['left of', 'to the left of', 'west of'],
  right: ['right of', 'to the right of', 'east of'],
};
const BARE = { up: ['up', 'north'], down: ['down', 'south'], left: ['left', 'west'], right: ['right', 'east'] };

/** "above me", "2 steps down and 1 step west of the box", "to the left of the player". */
function relPhrase(parts, ref) {
  if (parts.length === 1 && parts[0][1] === undefined) return `${pick(NEAR[parts[0][0]])} ${ref}`;
  const words = parts.map(([d, n]) => (n === undefined ? pick(BARE[d]) : `${steps(n)} ${pick(BARE[d])}`)).join(' and ');
  return `${words} ${pick(['of', 'from'])} ${ref}`;
}

function relText(name, parts, refName, negated) {
  const ref = refName === 'me' ? pick(['me', 'the player']) : `the ${refName}`;
  const phrase = relPhrase(parts, ref);
  if (negated) return pick([`The ${name} is not ${phrase}`, `The ${name} isn't ${phrase}`, `It is not true that the ${name} is ${phrase}`]);
  return pick([
    `The ${name} is ${phrase}`,
    `The ${name} lies ${phrase}`,
    `I can see the ${name} ${phrase}`,
    `${cap(name)} is located ${phrase}`,
  ]);
}

// ---- Sokoban facts ----------------------------------------------------------------------------
function sokobanFacts(s, truth) {
  const rows = s.fixed.length;
  const cols = s.fixed[0].length;
  const targets = cells(s.fixed, 'O');
  const box = s.boxes[0];
  const player = s.player;
  const isWall = ([r, c]) => r < 0 || c < 0 || r >= rows || c >= cols || s.fixed[r][c] === '#';
  const facts = [
    () => {
      const cell = truth ? player : offCell(player, rows, cols);
      return { text: posText('player', cell, true), style: 'position' };
    },
    () => {
      const cell = truth ? box : offCell(box, rows, cols);
      return { text: posText(pick(['box', 'crate']), cell), style: 'position' };
    },
    () => {
      const t = targets[0];
      let cell = t;
      if (!truth)
        do cell = offCell(t, rows, cols);
        while (targets.some((x) => eq(x, cell)));
      return { text: posText(pick(['target', 'goal square']), cell), style: 'position' };
    },
    () => {
      // box relative to the player, by direction only
      const real = dirsOf(player, box);
      if (!real.length) return null;
      const [d] = pick(real);
      const parts = truth ? [[d]] : [[OPP[d]]];
      if (!truth && real.some(([x]) => x === OPP[d])) return null;
      return { text: relText(pick(['box', 'crate']), parts, 'me'), style: 'relation' };
    },
    () => {
      // box relative to the player with distances
      const real = dirsOf(player, box);
      if (!real.length) return null;
      let parts = real;
      if (!truth) {
        const k = rng.int(0, real.length - 1);
        parts = real.map(([d, n], i) => (i === k ? (rng.float() < 0.5 ? [d, n + 1] : [OPP[d], n]) : [d, n]));
      }
      return { text: relText('box', parts, 'me'), style: 'relation' };
    },
    () => {
      // tricky negative: "the box is not left of me"
      const real = dirsOf(player, box).map(([d]) => d);
      const d = truth ? pick(Object.keys(DIRS).filter((x) => !real.includes(x))) : pick(real.length ? real : ['up']);
      if (!real.length) return null;
      return { text: relText('box', [[d]], 'me', true), style: 'negation' };
    },
    () => {
      // a wall next to the player
      const d = pick(Object.keys(DIRS));
      const cell = [player[0] + DIRS[d][0], player[1] + DIRS[d][1]];
      const wall = isWall(cell);
      const say = truth ? wall : !wall;
      const w = pick(NEAR[d]) + ' me';
      const text = say
        ? pick([`There is a wall ${w}`, `Moving ${d} would hit a wall`, `If I go ${d} I will bump into the wall`])
        : pick([`There is no wall ${w}`, `Moving ${d} is not blocked by a wall`, `I can move ${d} without hitting a wall`]);
      // "moving d is not blocked" is false when a box blocks too; keep only clean cases
      const beyond = [cell[0] + DIRS[d][0], cell[1] + DIRS[d][1]];
      const boxThere = s.boxes.some((b) => eq(b, cell));
      if (boxThere && (isWall(beyond) || s.boxes.some((b) => eq(b, beyond)))) return null;
      if (boxThere) return null;
      return { text, style: 'wall' };
    },
    () => {
      // where the box must go: target relative to the box (teacher template)
      const t = targets[0];
      const real = dirsOf(box, t);
      if (!real.length) return null;
      let parts = real;
      if (!truth) parts = real.map(([d, n], i) => (i === 0 ? [OPP[d], n] : [d, n]));
      const phrase = parts.map(([d, n]) => `${n} ${d}`).join(' and ');
      return {
        text: pick([
          `Box must go ${phrase}`,
          `The box needs to go ${phrase}`,
          `The target is ${parts.map(([d, n]) => `${steps(n)} ${d}`).join(' and ')} of the box`,
        ]),
        style: 'templated',
      };
    },
    () => {
      // outcome of a push
      const d = pick(Object.keys(DIRS));
      const next = [player[0] + DIRS[d][0], player[1] + DIRS[d][1]];
      const beyond = [next[0] + DIRS[d][0], next[1] + DIRS[d][1]];
      if (!eq(next, box) || isWall(beyond)) return null;
      const onTarget = targets.some((t) => eq(t, beyond));
      const say = truth ? onTarget : !onTarget;
      return {
        text: say
          ? pick([`Pushing ${d} puts the box onto the target`, `If I push the box ${d}, it lands on the target`])
          : pick([`Pushing ${d} will not put the box on the target`, `Pushing the box ${d} does not get it onto a target`]),
        style: 'outcome',
      };
    },
  ];
  return facts;
}

// ---- FrozenLake facts ---------------------------------------------------------------------------
function lakeFacts(s, truth) {
  const n = s.map.length;
  const goal = cells(s.map, 'G')[0];
  const holes = cells(s.map, 'H');
  const player = s.player;
  const inBoard = ([r, c]) => r >= 0 && c >= 0 && r < n && c < n;
  const holeAt = (cell) => holes.some((h) => eq(h, cell));
  const adjHoles = Object.keys(DIRS).filter((d) => holeAt([player[0] + DIRS[d][0], player[1] + DIRS[d][1]]));
  return [
    () => ({ text: posText('player', truth ? player : offCell(player, n, n), true), style: 'position' }),
    () => ({ text: posText(pick(['goal', 'gift', 'goal']), truth ? goal : offCell(goal, n, n)), style: 'position' }),
    () => {
      if (!holes.length) return null;
      let cell = pick(holes);
      if (!truth)
        do cell = offCell(cell, n, n);
        while (holeAt(cell));
      return { text: posText(pick(['hole', 'hole']), cell), style: 'position' };
    },
    () => {
      const real = dirsOf(player, goal);
      let parts = real;
      if (!truth) parts = real.map(([d, k], i) => (i === real.length - 1 ? (rng.float() < 0.5 ? [OPP[d], k] : [d, k + 1]) : [d, k]));
      const templ = `Goal at ${coord(goal)}, ${parts.map(([d, k]) => `${k} ${d}`).join(' and ')}`;
      return { text: rng.float() < 0.5 ? templ : relText('goal', parts, 'me'), style: rng.float() < 0.5 ? 'templated' : 'relation' };
    },
    () => {
      const real = dirsOf(player, goal);
      const [d] = pick(real);
      if (!truth && real.some(([x]) => x === OPP[d])) return null;
      return { text: relText(pick(['goal', 'gift']), [[truth ? d : OPP[d]]], 'me'), style: 'relation' };
    },
    () => {
      // a hole next to the player, in a direction
      const d = pick(Object.keys(DIRS));
      const cell = [player[0] + DIRS[d][0], player[1] + DIRS[d][1]];
      const hole = inBoard(cell) && holeAt(cell);
      const say = truth ? hole : !hole;
      const side = {
        up: ['right above me', 'just above me'],
        down: ['just below me', 'right beneath me'],
        left: ['to the left', 'on my left'],
        right: ['to the right', 'on my right'],
      };
      const where = rng.float() < 0.4 ? pick(side[d]) : rng.float() < 0.3 ? `directly ${pick(NEAR[d])} me` : `${pick(NEAR[d])} me`;
      return {
        text: say
          ? pick([
              `There is a hole ${where}`,
              `A hole is ${where}`,
              `Moving ${d} would make me fall into a hole`,
              `Going ${d} drops me in the water hole`,
            ])
          : pick([`There is no hole ${where}`, `Moving ${d} is safe, no hole there`, `Going ${d} will not fall into a hole`]),
        style: say ? 'hole' : 'negation',
      };
    },
    () => {
      const any = adjHoles.length > 0;
      const say = truth ? any : !any;
      return {
        text: say
          ? pick(['There is a hole next to me', 'A hole is adjacent to the player'])
          : pick(['No hole next to player', 'There are no holes next to me']),
        style: 'templated',
      };
    },
    () => {
      // reaching the goal in one move
      const d = pick(Object.keys(DIRS));
      const cell = [player[0] + DIRS[d][0], player[1] + DIRS[d][1]];
      const reach = eq(cell, goal);
      if (!reach && !truth && rng.float() < 0.5) return null;
      const say = truth ? reach : !reach;
      return {
        text: say
          ? pick([`Moving ${d} reaches the goal`, `If I move ${d} I will reach the goal`])
          : pick([`Moving ${d} does not reach the goal`]),
        style: 'outcome',
      };
    },
  ];
}

const FILLER = [
  'Let me think about this carefully.',
  'The goal is to push the box onto the target.',
  'I need to be careful here.',
  'This is a tricky position.',
  'I should plan ahead.',
];
const LAKE_FILLER = [
  'Let me think about this carefully.',
  'The ice is slippery, so I must be careful.',
  'I want to get to the goal safely.',
];

function example(env, s, facts, filler) {
  const k = rng.int(1, 3);
  const chosen = [];
  let wrong = 0;
  let guard = 0;
  while (chosen.length < k && guard++ < 60) {
    const truth = rng.float() < 0.6;
    const f = pick(facts(s, truth))();
    if (!f) continue;
    chosen.push(f);
    if (!truth) wrong++;
  }
  if (!chosen.length) return null;
  const parts = chosen.map((f) => f.text + '.');
  if (rng.float() < 0.3) parts.splice(rng.int(0, parts.length), 0, pick(filler));
  return { env, state: s, think: parts.join(' '), contradicted: wrong > 0, styles: [...new Set(chosen.map((f) => f.style))] };
}

const set = [];
for (let seed = 0; set.filter((e) => e.env === 'sokoban').length < 180; seed++) {
  const env = new SokobanEnv();
  env.reset(seed);
  // a few states along the way, not only the initial one
  for (const a of ['', 'Up', 'Left']) {
    if (a) env.step(a);
    const e = example('sokoban', env.snapshot(), sokobanFacts, FILLER);
    if (e) set.push(e);
  }
}
for (let seed = 0; set.filter((e) => e.env === 'frozenlake').length < 180; seed++) {
  const env = new FrozenLakeEnv({ successRate: 1 });
  env.reset(seed);
  for (const a of ['', 'Right', 'Down']) {
    if (a) env.step(a);
    if (env.done) break;
    const e = example('frozenlake', env.snapshot(), lakeFacts, LAKE_FILLER);
    if (e) set.push(e);
  }
}
const withIds = set.map((e, i) => ({ id: `${e.env === 'sokoban' ? 'sok' : 'lake'}-${String(i).padStart(4, '0')}`, ...e }));
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(withIds, null, 1) + '\n');
const pos = withIds.filter((e) => e.contradicted).length;
console.log(`wrote ${withIds.length} examples (${pos} contradicted, ${withIds.length - pos} not) to ${path.relative(process.cwd(), out)}`);
