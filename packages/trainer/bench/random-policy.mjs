// The uniformly random policy on the validation seeds (123…378, ten passes each), with quick-cpu's action
// budget: the success a base model must beat to "play better than random" (docs/results/bases.md).
import { buildRunConfig } from '@starpo/contracts';
import { createEnv, Rng } from '@starpo/envs';
for (const name of ['sokoban', 'frozenlake']) {
  const c = buildRunConfig('quick-cpu', { env: { name } });
  const budget = Math.min(c.rollout.maxActionsPerTraj, c.rollout.maxTurns * c.rollout.maxActionsPerTurn);
  const rng = new Rng(1);
  let wins = 0;
  const N = 2560;
  for (let i = 0; i < N; i++) {
    const env = createEnv(name, c.env.config);
    env.reset(123 + (i % 256));
    let done = false,
      success = false;
    for (let a = 0; a < budget && !done; a++) {
      const r = env.step(env.actions[rng.int(0, env.actions.length - 1)]);
      done = r.done;
      success = r.success ?? r.info?.success ?? false;
    }
    if (success) wins++;
  }
  console.log(`${name}: random policy success ${((100 * wins) / N).toFixed(1)}% over ${N} episodes (seeds 123…378 ×10, ${budget} actions)`);
}
