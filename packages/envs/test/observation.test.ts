import { describe, expect, it } from 'vitest';
import {
  FrozenLakeEnv,
  SokobanEnv,
  parseFrozenLakeObservation,
  parseSokobanObservation,
  renderFrozenLake,
  renderSokoban,
  snapshotFromObservation,
  validSnapshot,
  type FrozenLakeSnapshot,
  type SokobanSnapshot,
} from '../src/index.js';

/** The comparable part of a snapshot: the step count is not in the text. */
const sokobanBoard = (s: SokobanSnapshot) => ({ fixed: s.fixed, boxes: [...s.boxes].sort(), player: s.player, success: s.success });
const lakeBoard = (s: FrozenLakeSnapshot) => ({
  map: s.map.map((r) => r.replace('S', 'F')),
  player: s.player,
  done: s.done,
  success: s.success,
});

/** RAGEN's SokobanDifferentGridVocab printing of a grid in this project's symbols. */
const ALT_VOCAB: Record<string, string> = { '#': 'W', _: '.', O: 'G', '√': 'C', X: 'B', P: 'A', S: '@' };

describe('Sokoban text → snapshot', () => {
  const sizes = [
    { rows: 6, cols: 6, numBoxes: 1 },
    { rows: 8, cols: 8, numBoxes: 2 },
    { rows: 5, cols: 9, numBoxes: 1 },
    { rows: 10, cols: 7, numBoxes: 3 },
  ];
  for (const size of sizes) {
    it(
      `round-trips grid and grid_coord renders of ${size.rows}×${size.cols} rooms with ${size.numBoxes} box(es) over 40 seeds and random walks`,
      { timeout: 60_000 },
      () => {
        // a 10×7 room with 3 boxes needs a search within the reset budget (the schema says how far)
        const env = new SokobanEnv({ ...size, searchDepth: 30, maxExploredStates: 50_000 });
        let checked = 0;
        for (let seed = 0; seed < 40; seed++) {
          env.reset(seed);
          for (let move = 0; move < 6 && !env.done; move++) {
            const snap = env.snapshot();
            for (const format of ['grid', 'grid_coord'] as const) {
              const parsed = parseSokobanObservation(renderSokoban(snap, format));
              expect(parsed.ok, `seed ${seed} ${format}`).toBe(true);
              if (parsed.ok) {
                expect(sokobanBoard(parsed.snapshot)).toEqual(sokobanBoard(snap));
                expect(renderSokoban(parsed.snapshot, format)).toBe(renderSokoban(snap, format));
              }
              checked++;
            }
            env.step(env.actions[(seed + move) % 4]!);
          }
        }
        expect(checked).toBeGreaterThan(200);
      },
    );
  }

  it('reads RAGEN’s other vocabulary, the paper’s ✓, spaced symbols and the board inside a RAGEN turn block', () => {
    const env = new SokobanEnv();
    for (let seed = 100; seed < 130; seed++) {
      env.reset(seed);
      const snap = env.snapshot();
      const grid = renderSokoban(snap);
      const alt = [...grid].map((ch) => ALT_VOCAB[ch] ?? ch).join('');
      const spaced = grid
        .split('\n')
        .map((row) => [...row].join(' '))
        .join('\n')
        .replace(/√/g, '✓');
      const wrapped = `\nTurn 2:\nState:\n${renderSokoban(snap, 'grid_coord')}\nYou have 8 actions left. Always output: <think> [Your thoughts] </think> <answer> [your answer] </answer>\n`;
      for (const text of [alt, spaced, wrapped, `${grid}\r\n`]) {
        const parsed = parseSokobanObservation(text);
        expect(parsed.ok ? sokobanBoard(parsed.snapshot) : parsed.reason).toEqual(sokobanBoard(snap));
      }
    }
  });

  it('marks a solved board solved and gives reasons for text that holds no board', () => {
    const solved = parseSokobanObservation('#####\n#_√_#\n#_P_#\n#####');
    expect(solved).toMatchObject({ ok: true, snapshot: { success: true, done: true, boxes: [[1, 2]], player: [2, 2] } });
    const cases: [string, RegExp][] = [
      ['', /no Sokoban grid/],
      ['The box is left of me.', /no Sokoban grid/],
      ['#####\n#_X_#\n#___#\n#####', /one player; this grid has 0/],
      ['#####\n#PXO#\n#P__#\n#####', /one player; this grid has 2/],
      ['#####\n#PXO\n#___#\n#####', /different lengths/],
      ['#####\n#P_O#\n#####', /no box/],
      ['#####\n#PX_#\n#####', /no target/],
    ];
    for (const [text, reason] of cases) {
      const r = parseSokobanObservation(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(reason);
    }
  });
});

describe('FrozenLake text → snapshot', () => {
  for (const size of [2, 3, 4, 6, 8, 12]) {
    it(`round-trips ${size}×${size} maps over 60 seeds, through holes and goals`, { timeout: 60_000 }, () => {
      const env = new FrozenLakeEnv({ size, successRate: 1 });
      for (let seed = 0; seed < 60; seed++) {
        env.reset(seed);
        for (let move = 0; move < 8 && !env.done; move++) {
          const snap = env.snapshot();
          const parsed = parseFrozenLakeObservation(renderFrozenLake(snap));
          expect(parsed.ok, `seed ${seed}`).toBe(true);
          if (parsed.ok) {
            expect(lakeBoard(parsed.snapshot)).toEqual(lakeBoard(snap));
            expect(renderFrozenLake(parsed.snapshot)).toBe(renderFrozenLake(snap));
          }
          env.step(env.actions[(seed * 7 + move) % 4]!);
        }
        const last = parseFrozenLakeObservation(renderFrozenLake(env.snapshot()));
        expect(last.ok && lakeBoard(last.snapshot)).toEqual(lakeBoard(env.snapshot()));
      }
    });
  }

  it('refuses boards that are not a lake', () => {
    expect(parseFrozenLakeObservation('P_\n_G_')).toMatchObject({ ok: false });
    expect(parseFrozenLakeObservation('__G\n___')).toMatchObject({ ok: false, reason: expect.stringMatching(/square/) });
    expect(parseFrozenLakeObservation('_G\nG_')).toMatchObject({ ok: false, reason: expect.stringMatching(/player/) });
    expect(parseFrozenLakeObservation('PG\nG_')).toMatchObject({ ok: false, reason: expect.stringMatching(/more than one goal/) });
  });
});

describe('snapshotFromObservation and validSnapshot', () => {
  it('dispatches by environment and never throws', () => {
    expect(snapshotFromObservation('sokoban', '#####\n#PXO#\n#####')).toMatchObject({ ok: true, snapshot: { env: 'sokoban' } });
    expect(snapshotFromObservation('frozenlake', 'P_\n_G')).toMatchObject({ ok: true, snapshot: { env: 'frozenlake' } });
    expect(snapshotFromObservation('webshop', 'search[shoes]')).toEqual({ ok: false, reason: 'unknown environment "webshop"' });
    expect(snapshotFromObservation('sokoban', '   ')).toEqual({ ok: false, reason: 'the observation is empty' });
    expect(snapshotFromObservation('bandit', 'Phoenix or Dragon?')).toMatchObject({ ok: false });
    expect(snapshotFromObservation('sokoban', '#'.repeat(100_000))).toMatchObject({ ok: false });
  });

  it('accepts drawable snapshots only', () => {
    const env = new SokobanEnv();
    env.reset(1);
    expect(validSnapshot('sokoban', env.snapshot())).toEqual(env.snapshot());
    for (const bad of [
      {},
      null,
      'x',
      { env: 'sokoban' },
      { ...env.snapshot(), player: [40, 40] },
      { ...env.snapshot(), fixed: ['##', '###'] },
    ])
      expect(validSnapshot('sokoban', bad)).toBeNull();
    expect(validSnapshot('frozenlake', env.snapshot())).toBeNull();
    expect(validSnapshot('nope', env.snapshot())).toBeNull();
  });
});
