import { z } from '../zod.js';
import { cellSchema, findSymbolBlock, inside, symbolRows } from '../observation.js';
import type { ObservationParse, SokobanSnapshot } from '../types.js';

type Fixed = '#' | '_' | 'O';
interface Cell {
  fixed: Fixed;
  box?: true;
  player?: true;
}

/**
 * Every symbol a Sokoban board is printed with: this project's (= RAGEN's `grid_vocab`), the
 * paper's ✓ for a box on a target, and RAGEN's SokobanDifferentGridVocab (`W . G C B A @`).
 * The two vocabularies share no symbol, so one table reads both.
 */
const SYMBOLS: Record<string, Cell> = {
  '#': { fixed: '#' },
  _: { fixed: '_' },
  O: { fixed: 'O' },
  X: { fixed: '_', box: true },
  '√': { fixed: 'O', box: true },
  '✓': { fixed: 'O', box: true },
  '✔': { fixed: 'O', box: true },
  P: { fixed: '_', player: true },
  S: { fixed: 'O', player: true },
  W: { fixed: '#' },
  '.': { fixed: '_' },
  G: { fixed: 'O' },
  B: { fixed: '_', box: true },
  C: { fixed: 'O', box: true },
  A: { fixed: '_', player: true },
  '@': { fixed: 'O', player: true },
};
const SYMBOL_SET = new Set(Object.keys(SYMBOLS));

/**
 * Reads a Sokoban board from its text observation (`grid`, or `grid_coord` whose grid follows
 * `Grid Map:`), in either vocabulary and any room size. The step count is not in the text: 0.
 */
export function parseSokobanObservation(text: string): ObservationParse<SokobanSnapshot> {
  const block = findSymbolBlock(text, SYMBOL_SET);
  if (!block) return { ok: false, reason: 'no Sokoban grid (rows of # _ O X √ P S or W . G B C A @) in the observation' };
  const rows = symbolRows(block);
  if (typeof rows === 'string') return { ok: false, reason: rows };
  const fixed: string[] = [];
  const boxes: [number, number][] = [];
  const players: [number, number][] = [];
  rows.forEach((row, r) => {
    fixed.push(
      row
        .map((ch, c) => {
          const cell = SYMBOLS[ch]!;
          if (cell.box) boxes.push([r, c]);
          if (cell.player) players.push([r, c]);
          return cell.fixed;
        })
        .join(''),
    );
  });
  if (players.length !== 1) return { ok: false, reason: `a Sokoban board has one player; this grid has ${players.length}` };
  if (!boxes.length) return { ok: false, reason: 'the grid has no box' };
  if (!fixed.some((row) => row.includes('O'))) return { ok: false, reason: 'the grid has no target' };
  const success = boxes.every(([r, c]) => fixed[r]![c] === 'O');
  return { ok: true, snapshot: { env: 'sokoban', fixed, boxes, player: players[0]!, steps: 0, done: success, success } };
}

/** A stored Sokoban snapshot that can be drawn: a rectangle of # _ O with boxes and the player inside it. */
export const sokobanSnapshotSchema: z.ZodType<SokobanSnapshot> = z
  .object({
    env: z.literal('sokoban'),
    fixed: z
      .array(z.string().regex(/^[#_O]+$/))
      .min(1)
      .max(64),
    boxes: z.array(cellSchema()).max(64 * 64),
    player: cellSchema(),
    steps: z.number().int().min(0),
    done: z.boolean(),
    success: z.boolean(),
  })
  .refine((s) => s.fixed.every((row) => row.length === s.fixed[0]!.length), 'rows of different lengths')
  .refine((s) => [s.player, ...s.boxes].every((cell) => inside(s.fixed, cell)), 'a box or the player is outside the board');
