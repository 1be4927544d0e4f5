import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { SokobanEnv, solveSokoban } from '@starpo/envs';
import { registerEnvCommands } from '../src/cli/env-commands.js';

async function run(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerEnvCommands(program, (l) => lines.push(l));
  await program.parseAsync(['node', 'starpo', ...args]);
  return lines;
}

describe('starpo env', () => {
  it('render --env sokoban --seed 3 prints a solvable 6×6 grid in the paper’s symbols', async () => {
    const lines = await run(['env', 'render', '--env', 'sokoban', '--seed', '3']);
    const grid = lines.slice(1).join('\n').split('\n');
    expect(grid).toHaveLength(6);
    for (const row of grid) expect(row).toMatch(/^[#_O√XPS]{6}$/);
    const env = new SokobanEnv();
    expect(env.reset(3)).toBe(grid.join('\n'));
    expect(solveSokoban(env.snapshot())).not.toBeNull();
  });

  it('render --steps plays the actions, reporting invalid and ineffective ones', async () => {
    const lines = await run(['env', 'render', '--env', 'sokoban', '--seed', '3', '--steps', 'Up, Jump']);
    expect(lines.filter((l) => l.startsWith('> '))).toEqual(['> Up: reward -0.1', '> Jump: reward 0 (invalid action)']);
  });

  it('render --set changes the env config and rejects bad values by field', async () => {
    const lines = await run(['env', 'render', '--env', 'sokoban', '--seed', '1', '--set', 'rows=8', 'cols=8', 'numBoxes=2']);
    expect(lines.slice(1).join('\n').split('\n')).toHaveLength(8);
    await expect(run(['env', 'render', '--env', 'sokoban', '--set', 'rows=99'])).rejects.toThrow(/rows: Too big/);
  });

  it('list shows every environment', async () => {
    const lines = await run(['env', 'list']);
    expect(lines.filter((l) => !l.startsWith(' ')).map((l) => l.split(' ')[0])).toEqual(['sokoban', 'frozenlake', 'bandit', 'countdown']);
  });

  it('the built binary runs', () => {
    const bin = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const out = execFileSync(process.execPath, [bin, 'env', 'render', '--env', 'frozenlake', '--seed', '2'], { encoding: 'utf8' });
    expect(
      out
        .split('\n')
        .slice(1, 5)
        .every((r) => /^[P_OG]{4}$/.test(r)),
    ).toBe(true);
  });
});
