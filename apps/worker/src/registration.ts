import os from 'node:os';
import type { Db } from '@starpo/db';

export interface WorkerIdentity {
  id: string;
  name: string;
}

/** Insert this process into `workers` (host, backend, device, memory) and return its id. */
export async function registerWorker(db: Db, info: { backend: string; device: string; hasGpu: boolean }): Promise<WorkerIdentity> {
  const name = process.env.WORKER_NAME ?? `${os.hostname()}-${process.pid}`;
  const w = await db.worker.create({
    data: {
      name,
      host: os.hostname(),
      backend: info.backend,
      device: info.device,
      hasGpu: info.hasGpu,
      memoryBytes: BigInt(os.totalmem()),
      status: 'idle',
    },
  });
  return { id: w.id, name };
}

/** Refresh the worker's (and its current run's) heartbeat every `intervalMs` until stopped. */
export function startHeartbeat(
  db: Db,
  workerId: string,
  intervalMs: number,
  onError: (e: Error) => void,
  currentRun: () => string | null = () => null,
): () => void {
  const timer = setInterval(() => {
    const now = new Date();
    db.worker.update({ where: { id: workerId }, data: { lastHeartbeat: now } }).catch(onError);
    const run = currentRun();
    if (run) db.run.update({ where: { id: run }, data: { heartbeatAt: now } }).catch(onError);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
