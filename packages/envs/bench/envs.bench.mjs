// Environment throughput: resets/s and steps/s, measured side by side in one run.
import { createEnv } from '@starpo/envs';

function measure(label, fn, minMs = 1500) {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs) n += fn();
  const sec = (performance.now() - t0) / 1000;
  return { label, rate: n / sec };
}

const cases = [
  { name: 'sokoban 6×6, 1 box, depth 300', env: 'sokoban', config: {}, actions: ['Up', 'Down', 'Left', 'Right'] },
  {
    name: 'sokoban 8×8, 2 boxes, depth 10',
    env: 'sokoban',
    config: { rows: 8, cols: 8, numBoxes: 2, searchDepth: 10 },
    actions: ['Up', 'Down', 'Left', 'Right'],
  },
  { name: 'frozenlake 4×4, slippery', env: 'frozenlake', config: {}, actions: ['Left', 'Down', 'Right', 'Up'] },
  { name: 'bandit', env: 'bandit', config: {}, actions: null },
];

const rows = [];
for (const c of cases) {
  const env = createEnv(c.env, c.config);
  let seed = 0;
  const resets = measure('resets/s', () => {
    env.reset(seed++);
    return 1;
  });
  env.reset(0);
  let i = 0;
  const steps = measure('steps/s', () => {
    for (let k = 0; k < 100; k++) {
      if (env.done) env.reset(++seed);
      const actions = c.actions ?? env.actions;
      env.step(actions[i++ % actions.length]);
    }
    return 100;
  });
  rows.push({ environment: c.name, 'resets/s': Math.round(resets.rate), 'steps/s (incl. resets on done)': Math.round(steps.rate) });
}
console.table(rows);
