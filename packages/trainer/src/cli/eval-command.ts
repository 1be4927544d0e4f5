import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { applySetting, buildRunConfig, type RunConfig, type RunConfigOverrides } from '@starpo/contracts';
import { initBackend, type BackendChoice } from '../backend.js';
import { startPool, WORKERS_HELP } from '../parallel/start.js';
import { evaluateSamples } from '../train/evaluate.js';
import { rolloutSettings } from '../rollout/settings.js';
import { baseWeightsChecksum, loadBaseModel, shippedBaseDir } from '../bases/load.js';
import { PhaseProgress } from './progress.js';
import type { Trajectory } from '../rollout/types.js';

/** One JSON line per turn, for reading what the agent wrote against the state it saw. */
export function turnLines(trajectories: Trajectory[]): string {
  return trajectories
    .flatMap((t, episode) =>
      t.turns.map((turn) =>
        JSON.stringify({
          episode,
          seed: t.seed,
          env: t.env,
          turn: turn.index + 1, // as the prompt numbers turns
          state: turn.snapshot,
          observation: turn.observation,
          reply: turn.rawReply,
          think: turn.parsed.think,
          answer: turn.parsed.answer,
          formatOk: turn.parsed.formatOk,
          executed: turn.executed,
          diagnostics: turn.diagnostics,
          episodeSuccess: t.success,
        }),
      ),
    )
    .map((l) => `${l}\n`)
    .join('');
}

const pct = (x: number | undefined) => `${(100 * (x ?? 0)).toFixed(1)}%`;

/**
 * The run config an evaluation uses: a checkpoint's own run-config.json when the folder has one,
 * else the preset with the base's pretraining environment config; `--set` overrides either.
 */
function evalConfig(o: { model: string; preset: string; env?: string; set: string[] }, meta: Record<string, unknown>): RunConfig {
  const saved = path.join(o.model, 'run-config.json');
  let preset: string | undefined = o.preset;
  let overrides: Record<string, unknown>;
  if (existsSync(saved)) {
    preset = undefined; // a full config already
    overrides = JSON.parse(readFileSync(saved, 'utf8')) as Record<string, unknown>;
  } else {
    const pre = (meta.pretrain ?? {}) as { env?: string; envConfig?: Record<string, unknown> };
    const env = o.env ?? pre.env ?? 'sokoban';
    overrides = { env: { name: env, config: pre.env === env ? (pre.envConfig ?? {}) : {} } };
  }
  if (o.env) applySetting(overrides, `env.name=${o.env}`);
  for (const s of o.set) applySetting(overrides, s);
  return buildRunConfig(preset, { ...(overrides as RunConfigOverrides), model: { base: o.model } });
}

export function registerEvalCommand(program: Command, out: (line: string) => void): void {
  program
    .command('eval')
    .description('Validation episodes of a base model or training checkpoint on fixed seeds (success, format, diagnostics)')
    .option(
      '--model <dir>',
      "base model folder, a checkpoint folder (…/checkpoints/step-000020) or a base name (default: the preset's base for --env)",
    )
    .option('--env <name>', 'environment (default: the one the model was pretrained or trained on)')
    .option('--preset <name>', 'preset for the rollout settings when the folder has no run-config.json', 'quick-cpu')
    .option('--episodes <n>', 'episodes, one per seed', '256')
    .option('--seed-base <n>', 'first seed (RAGEN validates on 123, 124, …)', '123')
    .option('--temperature <x>', 'sampling temperature', '0.5')
    .option('--sampler-seed <n>', 'seed of the sampler', '123')
    .option('--samples <k>', 'episodes per seed (sampler seeds n, n + 1, …): reports the mean and pass@k', '1')
    .option('--set <path=value...>', 'config overrides, e.g. --set env.config.observationFormat=grid_coord', [])
    .option('--json <file>', 'also write the metrics as JSON')
    .option('--turns <file>', 'also write every turn as a JSON line (state, observation, reply, executed actions, reasoning checks)')
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu', 'auto')
    .option('--workers <n>', WORKERS_HELP, '1')
    .action(async (o: Record<string, string> & { set: string[] }) => {
      const episodes = Number(o.episodes);
      if (!Number.isInteger(episodes) || episodes < 1) throw new Error('--episodes must be a positive integer');
      const samples = Number(o.samples);
      if (!Number.isInteger(samples) || samples < 1) throw new Error('--samples must be a positive integer');
      await initBackend(o.backend as BackendChoice, out);
      o.model ??= buildRunConfig(o.preset, { env: { name: o.env ?? 'sokoban' } }).model.base;
      const base = loadBaseModel(o.model, 0);
      const sha = baseWeightsChecksum(shippedBaseDir(o.model) ?? o.model);
      out(`model ${o.model}${sha ? ` (weights sha256 ${sha.slice(0, 12)})` : ' (random init)'}`);
      const c = evalConfig({ model: o.model, preset: o.preset!, env: o.env, set: o.set }, base.meta);
      const pool = await startPool(o.workers, base.model, base.tokenizer, out);
      const progress = new PhaseProgress();
      progress.phase('evaluation', episodes * samples);
      let done = 0;
      const { metrics, passAtK, trajectories } = await evaluateSamples(
        base.model,
        base.tokenizer,
        {
          env: c.env.name,
          envConfig: c.env.config,
          settings: rolloutSettings(c),
          episodes,
          seedBase: Number(o.seedBase),
          temperature: Number(o.temperature),
          topP: c.rollout.topP,
          maxNewTokens: c.rollout.maxNewTokens,
          samplerSeed: Number(o.samplerSeed),
          pool,
          onTurn: (turn, active) => {
            if (turn === 1) done += active;
            progress.update(done, { turn });
          },
        },
        samples,
      ).finally(() => pool?.close());
      progress.stop();
      const se = Math.sqrt(((metrics['val/success'] ?? 0) * (1 - (metrics['val/success'] ?? 0))) / episodes);
      out(`${c.env.name} ${JSON.stringify(c.env.config)}: ${episodes} episodes from seed ${o.seedBase}, temperature ${o.temperature}`);
      // with k samples per seed this binomial error over the seeds is an upper bound
      out(`success ${pct(metrics['val/success'])} (± ${(100 * se).toFixed(1)} standard error)`);
      if (samples > 1) out(`${samples} samples per seed: pass@${samples} ${pct(passAtK)} (seeds solved at least once)`);
      out(
        `well-formed replies ${pct(metrics['val/well_formed_rate'])}, effective actions ${pct(metrics['val/action_is_effective'])}, actions per episode ${(metrics['val/num_actions'] ?? 0).toFixed(2)}`,
      );
      if (metrics['val/diag/contradicted_claim_rate'] !== undefined)
        out(
          `contradicted claims ${pct(metrics['val/diag/contradicted_claim_rate'])}, hallucination rate ${pct(metrics['val/diag/hallucination_rate'])}`,
        );
      if (o.turns) writeFileSync(o.turns, turnLines(trajectories));
      if (o.json)
        writeFileSync(
          o.json,
          JSON.stringify({ model: o.model, episodes, samples, temperature: Number(o.temperature), passAtK, metrics }, null, 2),
        );
    });
}
