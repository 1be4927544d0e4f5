import type { Db } from '../client.js';

/** Every registered worker, newest first, with the runs it holds running. */
export function listWorkers(db: Db) {
  return db.worker.findMany({
    orderBy: { startedAt: 'desc' },
    include: { runs: { where: { status: 'running' }, select: { id: true, teamId: true, name: true } } },
  });
}
