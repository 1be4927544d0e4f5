import { z } from '../zod.js';
import { cellSchema, findSymbolBlock, inside, symbolRows } from '../observation.js';
import type { FrozenLakeSnapshot, ObservationParse } from '../types.js';

/** Map letter under each printed symbol, and whether the player stands there (RAGEN's symbols; ✓ as in the paper). */
const SYMBOLS: Record<string, { tile: 'F' | 'H' | 'G'; player?: true }> = {
  _: { tile: 'F' },
  O: { tile: 'H' },
  G: { tile: 'G' },
  P: { tile: 'F', player: true },
  X: { tile: 'H', player: true },
  '√': { tile: 'G', player: true },
  '✓': { tile: 'G', player: true },
  '✔': { tile: 'G', player: true },
};
const SYMBOL_SET = new Set(Object.keys(SYMBOLS));

/**
 * Reads a FrozenLake board (any square size) from its text observation. The start tile is printed
 * like frozen ice, so the rebuilt map has no `S`; it draws and diagnoses the same.
 */
export function parseFrozenLakeObservation(text: string): ObservationParse<FrozenLakeSnapshot> {
  const block = findSymbolBlock(text, SYMBOL_SET);
  if (!block) return { ok: false, reason: 'no FrozenLake grid (rows of P _ O G X √) in the observation' };
  const rows = symbolRows(block);
  if (typeof rows === 'string') return { ok: false, reason: rows };
  if (rows.length !== rows[0]!.length)
    return { ok: false, reason: `a FrozenLake map is square; this grid is ${rows.length}×${rows[0]!.length}` };
  const players: [number, number][] = [];
  const map = rows.map((row, r) =>
    row
      .map((ch, c) => {
        const cell = SYMBOLS[ch]!;
        if (cell.player) players.push([r, c]);
        return cell.tile;
      })
      .join(''),
  );
  if (players.length !== 1) return { ok: false, reason: `a FrozenLake map has one player; this grid has ${players.length}` };
  if (map.join('').split('G').length - 1 > 1) return { ok: false, reason: 'the grid has more than one goal' };
  const player = players[0]!;
  const tile = map[player[0]]![player[1]];
  return { ok: true, snapshot: { env: 'frozenlake', map, player, done: tile !== 'F', success: tile === 'G' } };
}

/** A stored FrozenLake snapshot that can be drawn: a square of S F H G with the player on it. */
export const frozenLakeSnapshotSchema: z.ZodType<FrozenLakeSnapshot> = z
  .object({
    env: z.literal('frozenlake'),
    map: z
      .array(z.string().regex(/^[SFHG]+$/))
      .min(1)
      .max(64),
    player: cellSchema(),
    done: z.boolean(),
    success: z.boolean(),
  })
  .refine((s) => s.map.every((row) => row.length === s.map[0]!.length), 'rows of different lengths')
  .refine((s) => inside(s.map, s.player), 'the player is outside the map');
