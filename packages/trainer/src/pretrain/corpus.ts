import { createEnv, getEnvDefinition, Rng } from '@starpo/envs';
import { FORMAT_THINK, rewardMessage, systemPrompt, turnBlock, type PromptSettings } from '../rollout/context.js';
import { TeacherResponder } from './teacher.js';

/**
 * Text from which starpo-tiny's compact vocabulary is built: system prompts, turn blocks and
 * teacher replies of every environment, for a range of seeds. Deterministic.
 */
export function* vocabularyCorpus(seeds = 120): Generator<string> {
  const settings: PromptSettings = {
    maxActionsPerTraj: 10,
    maxResponseWords: 100,
    enableThink: true,
    actionSeparator: '||',
    contextWindow: 'full',
    lastKTurns: 2,
  };
  const teacher = new TeacherResponder({ maxActionsPerTurn: 5, randomActionShare: 0.2 });
  const rng = new Rng(1);
  // A fixed list, not the registry: the shipped bases' token ids follow from this corpus, so an environment
  // registered later must not change it.
  for (const name of ['sokoban', 'frozenlake', 'bandit', 'bandit-test']) {
    const envName = name === 'bandit-test' ? 'bandit' : name;
    const def = getEnvDefinition(envName);
    for (let seed = 0; seed < seeds; seed++) {
      const env = createEnv(envName, name === 'bandit-test' ? { split: 'test' } : {});
      const obs = env.reset(seed);
      yield systemPrompt(def, env, settings);
      yield turnBlock(1, obs, 10, settings) + rewardMessage(-0.1) + FORMAT_THINK;
      // Sokoban's coordinate observation (RAGEN HEAD's CoordSokoban) too, so its words are single tokens
      if (envName === 'sokoban') yield createEnv(envName, { observationFormat: 'grid_coord' }).reset(seed);
      yield teacher.replyText({ env, actionsLeft: 10 }, rng);
    }
  }
}
