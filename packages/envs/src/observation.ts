import { z } from './zod.js';
import { getEnvDefinition, listEnvs } from './registry.js';
import { textSnapshotSchema } from './protocol/in-process.js';
import type { EnvSnapshot, ObservationParse } from './types.js';

/** Largest boards any text parser accepts (the environments' own limits are lower). */
export const MAX_BOARD_SIDE = 64;

/** Every character (code point) of `row` is one of `symbols`. */
function allIn(row: string, symbols: ReadonlySet<string>): boolean {
  for (const ch of row) if (!symbols.has(ch)) return false;
  return true;
}

/**
 * The last block of consecutive lines made only of `symbols` (spaces between symbols ignored),
 * so a board is found inside RAGEN's `State:` wrapper, under `Grid Map:` or above an
 * "actions left" warning. Returns the rows, or null when no block of 2+ rows exists.
 */
export function findSymbolBlock(text: string, symbols: ReadonlySet<string>): string[] | null {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let best: string[] | null = null;
  let current: string[] = [];
  const close = () => {
    if (current.length >= 2) best = current;
    current = [];
  };
  for (const line of lines) {
    const row = line.replace(/[ \t]+/g, '');
    if (row.length > 0 && row.length <= MAX_BOARD_SIDE && allIn(row, symbols)) current.push(row);
    else close();
  }
  close();
  return best;
}

/** Rows of equal length, each split into symbols (code points, so `√` counts as one). */
export function symbolRows(rows: string[]): string[][] | string {
  const cells = rows.map((r) => [...r]);
  const width = cells[0]!.length;
  if (cells.some((r) => r.length !== width)) return `the board's rows have different lengths (${cells.map((r) => r.length).join(', ')})`;
  if (cells.length > MAX_BOARD_SIDE) return `the board has ${cells.length} rows (at most ${MAX_BOARD_SIDE})`;
  return cells;
}

/**
 * Rebuilds the state snapshot of `env` from an observation text. Unknown environments, text
 * environments and text that holds no board give `{ ok: false, reason }`; never throws.
 */
export function snapshotFromObservation(env: string, text: string): ObservationParse {
  if (!listEnvs().some((d) => d.name === env)) return { ok: false, reason: `unknown environment "${env}"` };
  if (!text.trim()) return { ok: false, reason: 'the observation is empty' };
  try {
    return getEnvDefinition(env).parseObservation(text);
  } catch (e) {
    return { ok: false, reason: `the observation could not be read: ${(e as Error).message}` };
  }
}

/** The snapshot when `value` is a well-formed state of `env` (safe to draw and diagnose), else null. */
export function validSnapshot(env: string, value: unknown): EnvSnapshot | null {
  // an environment served elsewhere is not registered here: its turns are drawn as text
  const schema = listEnvs().some((d) => d.name === env) ? getEnvDefinition(env).snapshotSchema : textSnapshotSchema;
  const r = schema.safeParse(value);
  return r.success ? (r.data as EnvSnapshot) : null;
}

/** A stored (row, col) inside a board of `rows` × `cols`. */
export function cellSchema(): z.ZodType<[number, number]> {
  return z.tuple([z.number().int().min(0).max(MAX_BOARD_SIDE), z.number().int().min(0).max(MAX_BOARD_SIDE)]);
}

/** True when (r, c) lies inside `rows`. */
export function inside(rows: readonly string[], [r, c]: readonly [number, number]): boolean {
  return r < rows.length && c < [...(rows[r] ?? '')].length;
}
