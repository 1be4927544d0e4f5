import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PRETRAIN_DEFAULTS } from '@starpo/contracts';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'scripts', 'bench-learn-matrix.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'learn-matrix-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// the smallest matrix that runs every part: nano bases from 8 teacher dialogues, one training step of 2 × 2 rollouts
const TINY = [
  ['--bases', '2', '--seeds', '1', '--steps', '1', '--dialogues', '8', '--epochs', '1', '--size', 'nano'],
  ['--pretrain-val', '2', '--episodes', '2', '--workers', '1', '--backend', 'wasm'],
  ['--bases-dir', path.join(dir, 'bases'), '--out', path.join(dir, 'out')],
  [
    '--set',
    'rollout.envGroups=2 rollout.groupSize=2 rollout.maxTurns=2 rollout.validation.every=0 ppo.miniBatchSize=4 ppo.microBatchSize=4',
  ],
].flat();

// the script reads its defaults from these; the caller's must not leak in
const CLEAR = Object.fromEntries(
  [
    'BASES',
    'SEEDS',
    'STEPS',
    'DIALOGUES',
    'EPOCHS',
    'EPISODES',
    'REWARD',
    'SIZE',
    'PRETRAIN_VAL',
    'WORKERS',
    'BACKEND',
    'BASES_DIR',
    'OUT',
    'SET',
    'ONLY',
  ].map((k) => [k, '']),
);
const matrix = (args: string[]) => {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 400_000, env: { ...process.env, ...CLEAR } });
  return { status: r.status, text: `${r.stdout}${r.stderr}` };
};

describe('bench:learn-matrix', () => {
  it('pretrains a base per seed, trains and evaluates each run, writes the table with median and worst gain, and resumes', () => {
    const first = matrix(TINY);
    expect(first.status, first.text).toBe(0);
    expect(first.text).toMatch(/pretrain --env sokoban --config nano --dialogues 8 --epochs 1 --val 2 --seed 1/);
    expect(first.text.match(/ train --preset quick-cpu /g)).toHaveLength(2);
    const out = JSON.parse(readFileSync(path.join(dir, 'out', 'matrix.json'), 'utf8')) as {
      summary: { runs: number; medianGain: number; worstGain: number };
      runs: {
        baseSeed: number;
        trainSeed: number;
        before: number;
        after: number;
        gainPoints: number;
        steps: number;
        trainSeconds: number;
      }[];
    };
    expect(out.runs.map((r) => [r.baseSeed, r.trainSeed, r.steps])).toEqual([
      [0, 0, 1],
      [1, 0, 1],
    ]);
    for (const r of out.runs) {
      expect(r.gainPoints).toBeCloseTo(100 * (r.after - r.before), 6);
      expect(r.trainSeconds).toBeGreaterThan(0);
    }
    expect(out.summary.worstGain).toBe(Math.min(...out.runs.map((r) => r.gainPoints)));
    const md = readFileSync(path.join(dir, 'out', 'matrix.md'), 'utf8');
    expect(md).toMatch(/\| base seed \| train seed \| before \| after \| gain \(points\) \| steps \| train wall time \| s\/step \|/);
    expect(md).toMatch(/\*\*Median gain [+-]\d+\.\d points, worst [+-]\d+\.\d/);
    // checkpoints but the last and the trajectories are removed; the metrics stay
    const train = path.join(dir, 'out', 'runs', 'b1-t0', 'train');
    expect(existsSync(path.join(train, 'metrics.jsonl'))).toBe(true);
    expect(existsSync(path.join(train, 'trajectories.jsonl'))).toBe(false);

    // a run whose evaluation was lost is evaluated again, without training; everything else is skipped
    rmSync(path.join(dir, 'out', 'runs', 'b1-t0', 'result.json'));
    rmSync(path.join(dir, 'out', 'runs', 'b1-t0', 'eval-final.json'));
    const again = matrix(TINY);
    expect(again.status, again.text).toBe(0);
    expect(again.text).not.toMatch(/ pretrain | train --preset/);
    expect(again.text.match(/ eval --model /g)).toHaveLength(1);
    expect(again.text).toMatch(/run 1\/2 \(finished before\)/);
    expect(JSON.parse(readFileSync(path.join(dir, 'out', 'matrix.json'), 'utf8')).runs).toEqual(out.runs);
  }, 420_000);

  it('names the option of bad input and runs nothing', () => {
    for (const [args, message] of [
      [['--steps', '0'], /--steps must be an integer ≥ 1, not "0"/],
      [['--reward', 'dense'], /--reward must be shaped or sparse/],
      [['--set', 'no-equals'], /--set takes path=value/],
      [['--only', 'b1'], /--only takes cells like b0-t1, not "b1"/],
      [['--only', 'b0-t2'], /--only names b0-t2, outside the 3 bases × 2 seeds of the matrix/],
      [['--bogus'], /Unknown option '--bogus'/],
    ] as const) {
      const r = matrix([...args, '--out', path.join(dir, 'bad')]);
      expect(r.status).toBe(1);
      expect(r.text).toMatch(message);
      expect(existsSync(path.join(dir, 'bad'))).toBe(false);
    }
  }, 60_000);

  it('prints the plan of the full matrix in a dry run, with the sparse reward’s StarPO-S overrides', () => {
    const r = matrix(['--dry-run', '--reward', 'sparse', '--bases-dir', path.join(dir, 'dry-bases'), '--out', path.join(dir, 'dry')]);
    expect(r.status, r.text).toBe(0);
    const { dialogues, epochs } = PRETRAIN_DEFAULTS;
    const pretrains = new RegExp(
      ` pretrain --env sokoban --config tiny --dialogues ${dialogues} --epochs ${epochs} --val 64 --seed \\d`,
      'g',
    );
    expect(r.text.match(pretrains)).toHaveLength(3);
    const trains = r.text.match(/ train --preset quick-cpu .*/g) ?? [];
    expect(trains).toHaveLength(6);
    expect(trains[5]).toMatch(/--steps 80 .*training\.seed=1 env\.config\.rewardShaping=none .*filter\.ratio=0\.25/);
    expect(r.text.match(/ eval --model .* --episodes 256 /g)).toHaveLength(9);
    expect(existsSync(path.join(dir, 'dry-bases'))).toBe(false);
  }, 60_000);

  it('the imitation arm continues imitation from each base instead of RL', () => {
    const r = matrix([
      '--dry-run',
      '--only',
      'b1-t0',
      '--imitation',
      '3000',
      '--bases-dir',
      path.join(dir, 'dry-bases'),
      '--out',
      path.join(dir, 'dry-im'),
    ]);
    expect(r.status, r.text).toBe(0);
    expect(r.text).not.toMatch(/ train --preset/);
    expect(r.text).toMatch(/ pretrain --env sokoban --init \S+-s1 --dialogues 3000 --epochs 1 --seed 100 /);
  }, 60_000);

  it('runs only the cells --only names, with the extra overrides', () => {
    const r = matrix([
      ...['--dry-run', '--only', 'b2-t0,b0-t1', '--set', 'algorithm.consistentCreditOnly=true'],
      ...['--bases-dir', path.join(dir, 'dry-bases'), '--out', path.join(dir, 'dry')],
    ]);
    expect(r.status, r.text).toBe(0);
    const trains = r.text.match(/ train --preset quick-cpu .*/g) ?? [];
    expect(trains.map((t) => t.match(/runs\/(b\d-t\d)\//)?.[1])).toEqual(['b0-t1', 'b2-t0']);
    for (const t of trains) expect(t).toMatch(/algorithm\.consistentCreditOnly=true/);
    expect(r.text).not.toMatch(/pretrain seed 1\)/);
  }, 60_000);
});

describe('scripts/learning-streams.mjs', () => {
  it('reproduces the committed runs’ early signals and their correlation with the gain (docs/results/2026-12-02-learning-streams.md)', () => {
    const r = spawnSync(process.execPath, [path.join(path.dirname(script), 'learning-streams.mjs')], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\| S11-N \| 71 \| 3\.1% \| 48\.0% \| 4\.7 \| 11\.7 \|/);
    expect(r.stdout).toMatch(/\| Δ think\/answer mismatch \| -0\.38 \(n 11\) \| -0\.83 \(n 8\) \|/);
    const bad = spawnSync(process.execPath, [path.join(path.dirname(script), 'learning-streams.mjs'), 'x=/nonexistent/metrics.jsonl'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/no metrics file \/nonexistent\/metrics\.jsonl/);
  }, 60_000);
});
