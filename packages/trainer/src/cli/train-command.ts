import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { applySetting, buildRunConfig, type RunConfig, type RunConfigOverrides } from '@starpo/contracts';
import { initBackend, type BackendChoice } from '../backend.js';
import { startPool, WORKERS_HELP } from '../parallel/start.js';
import { FileSink, latestCheckpoint } from '../train/file-sink.js';
import { train } from '../train/loop.js';
import { loadBaseModel } from '../bases/load.js';
import { PhaseProgress } from './progress.js';
import { readValidations, valVerdictLine } from './val-verdict-line.js';

const fmt = (v: number | undefined) => (v === undefined ? '–' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3));

export function registerTrainCommand(program: Command, out: (line: string) => void): void {
  program
    .command('train')
    .description('Run the StarPO loop locally, writing metrics.jsonl, trajectories.jsonl and checkpoints to --out')
    .option('--preset <name>', 'starpo-ppo | starpo-grpo | starpo-s-ppo | starpo-s-grpo | gigpo | quick-cpu')
    .option('--env <name>', 'environment (sokoban, frozenlake, bandit)')
    .option('--base <dir>', 'base model folder (from `starpo pretrain`) or starpo-tiny/<size>')
    .option('--steps <n>', 'training steps')
    .option('--set <path=value...>', 'config overrides, e.g. --set ppo.actorLr=1e-4 rollout.groupSize=4', [])
    .option('--out <dir>', 'output folder')
    .option('--resume <dir>', 'continue the run in this folder from its latest checkpoint')
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu')
    .option('--time-limit <minutes>', 'end (validated and checkpointed) after the last step that fits in this many minutes')
    .option('--workers <n>', WORKERS_HELP, '1')
    .action(
      async (o: {
        preset?: string;
        env?: string;
        base?: string;
        steps?: string;
        set: string[];
        out?: string;
        resume?: string;
        backend?: string;
        timeLimit?: string;
        workers: string;
      }) => {
        let config: RunConfig;
        let outDir: string;
        let resume: Map<string, Uint8Array> | undefined;
        if (o.resume) {
          outDir = o.resume;
          config = JSON.parse(readFileSync(path.join(outDir, 'run-config.json'), 'utf8')) as RunConfig;
          const ckpt = latestCheckpoint(outDir);
          if (!ckpt) throw new Error(`no checkpoint in ${outDir}/checkpoints`);
          resume = ckpt.files;
          out(`resuming ${outDir} from step ${ckpt.step}`);
        } else {
          if (!o.out) throw new Error('--out is required (or --resume DIR)');
          outDir = o.out;
          const overrides: Record<string, unknown> = {};
          if (o.env) applySetting(overrides, `env.name=${o.env}`);
          if (o.base) applySetting(overrides, `model.base=${JSON.stringify(o.base)}`);
          if (o.steps) applySetting(overrides, `training.steps=${o.steps}`);
          if (o.backend) applySetting(overrides, `model.backend=${o.backend}`);
          for (const s of o.set) applySetting(overrides, s);
          config = buildRunConfig(o.preset, overrides as RunConfigOverrides);
        }
        await initBackend((o.backend ?? config.model.backend) as BackendChoice, out);
        const progress = new PhaseProgress();
        progress.phase('training', config.training.steps);
        const sink = new FileSink(outDir, (step, m) => {
          if (m['train/success'] !== undefined) {
            progress.update(step, {
              success: fmt(m['train/success']),
              reward: fmt(m['train/reward/mean']),
              'std(group)': fmt(m['rollout/in_group_reward_std']),
              entropy: fmt(m['train/entropy']),
              kept: fmt(m['rollout/filter_kept_ratio']),
              's/step': fmt(m['timing_s/step']),
            });
          }
          if (m['val/success'] !== undefined) out(`  step ${step}: validation success ${(100 * m['val/success']).toFixed(1)}%`);
        });
        const { writeFileSync } = await import('node:fs');
        writeFileSync(path.join(outDir, 'run-config.json'), JSON.stringify(config, null, 2));
        const base = loadBaseModel(config.model.base, config.training.seed);
        const abort = new AbortController();
        process.once('SIGINT', () => {
          out('\ncancelling after the current phase (Ctrl-C again to abort)…');
          abort.abort();
        });
        let deadline: number | undefined;
        if (o.timeLimit) {
          const ms = Number(o.timeLimit) * 60_000;
          if (!(ms > 0)) throw new Error('--time-limit must be a positive number of minutes');
          deadline = Date.now() + ms;
        }
        const pool = await startPool(o.workers, base.model, base.tokenizer, out);
        const result = await train({ config, base, sink, signal: abort.signal, resume, deadline, pool }).finally(() => pool?.close());
        progress.stop();
        out(`${result.status} at step ${result.step}${result.stopReason ? ` (${result.stopReason})` : ''}; outputs in ${outDir}`);
        out(valVerdictLine(readValidations(outDir), config.rollout.validation.size));
      },
    );
}
