import { Controller, Inject } from '@nestjs/common';
import { Route } from './route.js';
import { isSlowEngine, engineSchema, ROUTES, type WorkerInfo } from '@starpo/contracts';
import { listWorkers, type Db } from '@starpo/db';
import { CurrentActor, type Actor } from './auth/actor.js';
import { DB, SETTINGS, type ApiSettings } from './di-tokens.js';

/** The trainer workers, shared infrastructure of the deployment. */
@Controller()
export class WorkersController {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
  ) {}

  /** Another team's current run is not named. */
  @Route(ROUTES.workers)
  async workers(@CurrentActor() a: Actor): Promise<WorkerInfo[]> {
    const rows = await listWorkers(this.db);
    const staleMs = this.settings.workerStaleMs;
    return rows.map((w) => {
      // no heartbeat for the stale timeout: the process is gone (or frozen); it no longer counts as busy
      const lost = w.status !== 'offline' && Date.now() - w.lastHeartbeat.getTime() > staleMs;
      // a value this API does not know (a newer worker's) reads as unknown
      const engine = engineSchema.catch('unknown').parse(w.engine);
      const run = lost ? undefined : w.runs.find((r) => r.id === w.currentRunId);
      return {
        id: w.id,
        name: w.name,
        host: w.host,
        backend: w.backend,
        engine,
        slowEngine: isSlowEngine(engine),
        device: w.device,
        hasGpu: w.hasGpu,
        memoryBytes: Number(w.memoryBytes),
        status: lost ? 'lost' : w.status,
        currentRun: !run ? null : run.teamId === a.teamId ? { id: run.id, name: run.name } : { id: null, name: 'another team' },
        lastHeartbeat: w.lastHeartbeat.toISOString(),
        startedAt: w.startedAt.toISOString(),
      };
    });
  }
}
