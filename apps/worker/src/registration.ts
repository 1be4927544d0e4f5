import os from 'node:os';
import type { Engine } from '@starpo/contracts';
import type { Db } from '@starpo/db';
import { defaultWorkerName } from './settings.js';

export interface WorkerIdentity {
  id: string;
  name: string;
}

/** Insert this process into `workers` (host, backend, engine, device, memory) and return its id. */
export async function registerWorker(
  db: Db,
  info: { name?: string; backend: string; engine: Engine; device: string; hasGpu: boolean },
): Promise<WorkerIdentity> {
  const name = info.name ?? defaultWorkerName();
  const w = await db.worker.create({
    data: {
      name,
      host: os.hostname(),
      backend: info.backend,
      engine: info.engine,
      device: info.device,
      hasGpu: info.hasGpu,
      memoryBytes: BigInt(os.totalmem()),
      status: 'idle',
    },
  });
  return { id: w.id, name };
}

/** Refresh the worker's heartbeat every `intervalMs` until stopped (its run's heartbeat is refreshed under its lease by executeRun). */
export function startHeartbeat(db: Db, workerId: string, intervalMs: number, onError: (e: Error) => void): () => void {
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return; // never stack heartbeats on a slow database
    inFlight = true;
    db.worker
      .update({ where: { id: workerId }, data: { lastHeartbeat: new Date() } })
      .catch(onError)
      .finally(() => (inFlight = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
