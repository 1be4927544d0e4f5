import { createHash, randomUUID } from 'node:crypto';
import { CHECKPOINT_COMPLETE_FILE, defaultArchiveStep } from '@starpo/contracts';
import type { Db } from '../client.js';
import { assertLease } from './leases.js';

/** Checkpoint bytes are stored in chunks of at most this size, so multi-GB models fit. */
export const CHUNK_BYTES = 8 * 1024 * 1024;

/** One file of a checkpoint: its name (the row's kind), bytes and format. */
export interface CheckpointFileInput {
  kind: string;
  bytes: Uint8Array;
  format?: string;
}

/**
 * Store the files of a run's checkpoint at `step` in one transaction, replacing earlier copies of
 * the same names; with `lease`, only while the run carries it. One transaction instead of one per
 * file: a shutdown's checkpoint takes one round of locks and commits, not eight.
 */
export async function storeCheckpoint(
  db: Db,
  runId: string,
  step: number,
  files: CheckpointFileInput[],
  opts: { lease?: number } = {},
): Promise<string[]> {
  const rows = files.map((f) => ({
    id: randomUUID(),
    runId,
    step,
    kind: f.kind,
    format: f.format ?? 'raw',
    sizeBytes: BigInt(f.bytes.byteLength),
    sha256: createHash('sha256').update(f.bytes).digest('hex'),
  }));
  const chunks = rows.flatMap((r, k) => {
    const bytes = files[k]!.bytes;
    const n = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES));
    return Array.from({ length: n }, (_, index) => ({
      checkpointId: r.id,
      index,
      data: new Uint8Array(bytes.subarray(index * CHUNK_BYTES, Math.min(bytes.byteLength, (index + 1) * CHUNK_BYTES))),
    }));
  });
  const total = files.reduce((a, f) => a + f.bytes.byteLength, 0);
  await db.$transaction(
    async (tx) => {
      if (opts.lease !== undefined) await assertLease(tx, runId, opts.lease);
      await tx.checkpoint.deleteMany({ where: { runId, step, kind: { in: rows.map((r) => r.kind) } } });
      await tx.checkpoint.createMany({ data: rows });
      // small chunks share a statement; each statement carries at most about one chunk's worth of bytes
      for (let i = 0; i < chunks.length;) {
        let bytes = 0;
        let j = i;
        while (j < chunks.length && (j === i || bytes + chunks[j]!.data.byteLength <= CHUNK_BYTES)) bytes += chunks[j++]!.data.byteLength;
        await tx.checkpointChunk.createMany({ data: chunks.slice(i, j) });
        i = j;
      }
    },
    // a multi-GB model takes a while to send: a minute, and a second more per chunk
    { timeout: 60_000 + Math.ceil(total / CHUNK_BYTES) * 1000, maxWait: 10_000 },
  );
  return rows.map((r) => r.id);
}

/** Store one checkpoint file (kind = file name) for a run's step, replacing an earlier copy; with `lease`, only while the run carries it. */
export async function storeCheckpointFile(
  db: Db,
  runId: string,
  step: number,
  kind: string,
  bytes: Uint8Array,
  format = 'raw',
  opts: { lease?: number } = {},
): Promise<string> {
  return (await storeCheckpoint(db, runId, step, [{ kind, bytes, format }], opts))[0]!;
}

/** Read a checkpoint file back, verifying its sha256. */
export async function readCheckpointFile(db: Db, checkpointId: string): Promise<Uint8Array> {
  const ck = await db.checkpoint.findUniqueOrThrow({ where: { id: checkpointId } });
  const chunks = await db.checkpointChunk.findMany({ where: { checkpointId }, orderBy: { index: 'asc' } });
  const out = new Uint8Array(Number(ck.sizeBytes));
  let pos = 0;
  for (const c of chunks) {
    out.set(c.data, pos);
    pos += c.data.byteLength;
  }
  const sha = createHash('sha256').update(out).digest('hex');
  if (sha !== ck.sha256 || pos !== out.byteLength) throw new Error(`checkpoint ${checkpointId} is corrupt (sha256 mismatch)`);
  return out;
}

/** All files of a run's latest complete checkpoint (the one with state.json), or null. */
export async function latestCheckpointFiles(db: Db, runId: string): Promise<{ step: number; files: Map<string, Uint8Array> } | null> {
  const last = await db.checkpoint.findFirst({ where: { runId, kind: CHECKPOINT_COMPLETE_FILE }, orderBy: { step: 'desc' } });
  if (!last) return null;
  const all = await db.checkpoint.findMany({ where: { runId, step: last.step } });
  const files = new Map<string, Uint8Array>();
  for (const c of all) files.set(c.kind, await readCheckpointFile(db, c.id));
  return { step: last.step, files };
}

/**
 * Stream a checkpoint file chunk by chunk (one chunk in memory at a time). The sha256 is
 * checked as it goes; a mismatch throws after the last chunk, so a consumer can abort the transfer.
 */
export async function* streamCheckpointFile(db: Db, checkpointId: string): AsyncGenerator<Uint8Array> {
  const ck = await db.checkpoint.findUniqueOrThrow({ where: { id: checkpointId } });
  const hash = createHash('sha256');
  const count = await db.checkpointChunk.count({ where: { checkpointId } });
  let size = 0;
  for (let i = 0; i < count; i++) {
    const c = await db.checkpointChunk.findUniqueOrThrow({ where: { checkpointId_index: { checkpointId, index: i } } });
    hash.update(c.data);
    size += c.data.byteLength;
    yield c.data;
  }
  if (hash.digest('hex') !== ck.sha256 || size !== Number(ck.sizeBytes))
    throw new Error(`checkpoint ${checkpointId} is corrupt (sha256 mismatch)`);
}

/** A run's checkpoint files, newest step first. */
export function runCheckpoints(db: Db, runId: string) {
  return db.checkpoint.findMany({ where: { runId }, orderBy: [{ step: 'desc' }, { kind: 'asc' }] });
}

/** A checkpoint file of a run of `teamId`, else null. */
export function findTeamCheckpoint(db: Db, teamId: string, id: string) {
  return db.checkpoint.findFirst({ where: { id, run: { teamId } } });
}

/** The step a run's archive serves when none is asked for (`defaultArchiveStep`). */
export async function latestArchiveStep(db: Db, runId: string): Promise<number | undefined> {
  return defaultArchiveStep(await db.checkpoint.findMany({ where: { runId }, select: { step: true, kind: true } }));
}

/** The files of one checkpoint step, by name. */
export function checkpointStepFiles(db: Db, runId: string, step: number) {
  return db.checkpoint.findMany({ where: { runId, step }, orderBy: { kind: 'asc' } });
}
