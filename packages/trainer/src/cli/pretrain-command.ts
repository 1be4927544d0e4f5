import { PRETRAIN_ENVS } from '@starpo/contracts';
import type { Command } from 'commander';
import { initBackend, type BackendChoice } from '../backend.js';
import { STARPO_TINY_SIZES, type StarpoTinySize } from '../model/config.js';
import { PRETRAIN_DEFAULTS, pretrain, type PretrainEnv } from '../pretrain/pretrain.js';
import { PhaseProgress } from './progress.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function registerPretrainCommand(program: Command, out: (line: string) => void): void {
  program
    .command('pretrain')
    .description('Warm start: supervised training of a starpo-tiny model on scripted-teacher dialogues')
    .requiredOption('--env <env>', PRETRAIN_ENVS.join(' | '))
    .requiredOption('--out <dir>', 'output folder for the base model')
    .option('--config <size>', `model size: ${STARPO_TINY_SIZES.join(' | ')}`, PRETRAIN_DEFAULTS.size)
    .option('--dialogues <n>', 'teacher dialogues per environment', String(PRETRAIN_DEFAULTS.dialogues))
    .option('--epochs <n>', 'passes over the dialogues', String(PRETRAIN_DEFAULTS.epochs))
    .option('--lr <x>', 'peak learning rate', String(PRETRAIN_DEFAULTS.lr))
    .option('--batch <n>', 'dialogues per optimizer step', String(PRETRAIN_DEFAULTS.batchSize))
    .option('--random-share <x>', 'share of teacher actions replaced at random', String(PRETRAIN_DEFAULTS.randomActionShare))
    .option('--val <n>', 'validation episodes per environment', String(PRETRAIN_DEFAULTS.valSize))
    .option('--seed <n>', 'random seed', String(PRETRAIN_DEFAULTS.seed))
    .option('--obs <format>', "Sokoban observation format: grid | grid_coord (RAGEN HEAD's CoordSokoban)")
    .option('--env-config <json>', 'environment settings as JSON, e.g. \'{"map":["SFF","FHF","FFG"],"successRate":1}\'')
    .option(
      '--init <base>',
      'continue from this base model (folder or name) instead of random weights; use another --seed for fresh dialogues',
    )
    .option(
      '--dagger-rounds <n>',
      'on-policy rounds after cloning: the model plays, the teacher labels the states it visited, one pass on them',
      '0',
    )
    .option('--dagger-episodes <n>', 'episodes the model plays per round and environment', '2000')
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu', 'auto')
    .action(async (o: Record<string, string>) => {
      if (!(PRETRAIN_ENVS as readonly string[]).includes(o.env!)) throw new Error(`--env must be one of ${PRETRAIN_ENVS.join(', ')}`);
      if (o.obs && (o.env !== 'sokoban' || !['grid', 'grid_coord'].includes(o.obs)))
        throw new Error('--obs is for --env sokoban: grid or grid_coord');
      if (!(STARPO_TINY_SIZES as readonly string[]).includes(o.config!))
        throw new Error(`--config must be one of ${STARPO_TINY_SIZES.join(', ')}`);
      if (o.envConfig && o.env === 'mixed') throw new Error('--env-config is for one environment, not mixed');
      const envConfig = { ...(o.envConfig ? parseEnvConfig(o.envConfig) : {}), ...(o.obs ? { observationFormat: o.obs } : {}) };
      if (!/^\d+$/.test(o.seed!)) throw new Error(`--seed must be a non-negative integer, not "${o.seed}"`);
      await initBackend(o.backend as BackendChoice, out);
      const progress = new PhaseProgress();
      const result = await pretrain(
        {
          ...PRETRAIN_DEFAULTS,
          env: o.env as PretrainEnv,
          size: o.config as StarpoTinySize,
          out: o.out!,
          dialogues: Number(o.dialogues),
          epochs: Number(o.epochs),
          lr: Number(o.lr),
          batchSize: Number(o.batch),
          randomActionShare: Number(o.randomShare),
          valSize: Number(o.val),
          seed: Number(o.seed),
          envConfig: Object.keys(envConfig).length ? envConfig : undefined,
          init: o.init,
          daggerRounds: Number(o.daggerRounds),
          daggerEpisodes: Number(o.daggerEpisodes),
        },
        { phase: (n, t) => progress.phase(n, t), progress: (d, i) => progress.update(d, i), log: (m) => (progress.stop(), out(m)) },
      );
      progress.stop();
      out(`base model written to ${o.out}`);
      out(
        `parameters ${result.params}, vocabulary ${result.vocabSize}, ${result.examples} dialogues, final loss ${result.finalLoss.toFixed(3)}, ${result.seconds.toFixed(0)} s`,
      );
      out(`well-formed replies ${pct(result.formatRate)} (with only valid actions ${pct(result.validReplyRate)})`);
      for (const [env, s] of Object.entries(result.success))
        out(`${env}: validation success ${pct(s)}${env in result.teacherSuccess ? ` (teacher ${pct(result.teacherSuccess[env]!)})` : ''}`);
    });
}

function parseEnvConfig(json: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new Error(`--env-config is not JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('--env-config must be a JSON object');
  return v as Record<string, unknown>;
}
