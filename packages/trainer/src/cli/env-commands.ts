import type { Command } from 'commander';
import { ValidationError, applySetting, toFieldErrors } from '@starpo/contracts';
import { getEnvDefinition, listEnvs, solveFrozenLake, solveSokoban, type EnvSnapshot } from '@starpo/envs';

function parseConfig(settings: string[]): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const s of settings) applySetting(config, s);
  return config;
}

function solve(s: EnvSnapshot): string[] | null {
  if (s.env === 'sokoban') return solveSokoban(s);
  if (s.env === 'frozenlake') return solveFrozenLake(s);
  return null;
}

export function registerEnvCommands(program: Command, out: (line: string) => void): void {
  const env = program.command('env').description('Inspect the environments');

  env
    .command('list')
    .description('List the registered environments and their default config')
    .action(() => {
      for (const d of listEnvs()) {
        out(`${d.name.padEnd(12)} ${d.description}`);
        out(`${''.padEnd(12)} defaults: ${JSON.stringify(d.configSchema.parse({}))}`);
      }
    });

  env
    .command('render')
    .description('Print the initial state for a seed, optionally after some actions')
    .requiredOption('--env <name>', 'environment name (see `starpo env list`)')
    .option('--seed <n>', 'reset seed', '0')
    .option('--steps <actions>', 'comma-separated actions to play, e.g. "Up,Left"')
    .option('--set <path=value...>', 'environment config overrides, e.g. --set rows=8 cols=8 numBoxes=2', [])
    .option('--solve', 'also print the solver’s optimal plan (deterministic dynamics)')
    .action((opts: { env: string; seed: string; steps?: string; set: string[]; solve?: boolean }) => {
      const def = getEnvDefinition(opts.env);
      const seed = Number(opts.seed);
      if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got "${opts.seed}"`);
      const parsed = def.configSchema.safeParse(parseConfig(opts.set));
      if (!parsed.success) throw new ValidationError(toFieldErrors(parsed.error), `${def.name} config`);
      const e = def.create(parsed.data);
      out(`${def.title}, seed ${seed}`);
      out(e.reset(seed));
      if (opts.solve) {
        const plan = solve(e.snapshot());
        out(plan ? `optimal plan (${plan.length} actions): ${plan.join(', ')}` : 'no plan found');
      }
      for (const action of (opts.steps ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean)) {
        const r = e.step(action);
        out('');
        out(
          `> ${action}: reward ${+r.reward.toFixed(4)}${r.actionValid ? '' : ' (invalid action)'}${r.actionValid && !r.actionEffective ? ' (no effect)' : ''}${r.done ? `, done, ${r.success ? 'success' : 'failure'}` : ''}`,
        );
        out(r.observation);
      }
    });
}
