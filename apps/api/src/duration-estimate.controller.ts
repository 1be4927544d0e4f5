import { Controller, Inject } from '@nestjs/common';
import { isSlowEngine, ROUTES, STATIC_SECONDS_PER_1K_TOKENS, type DurationEstimate, type Engine } from '@starpo/contracts';
import { lastRunsRates, onlineWorkerEngines, onlineWorkerRates, type Db, type MeasuredRates } from '@starpo/db';
import { DB, SETTINGS, type ApiSettings } from './di-tokens.js';
import { Route, Valid, type Parsed } from './route.js';

/**
 * How long a run of a preset takes, for the New run form: the online workers' own recent steps of the
 * preset, else the last finished runs of it, else the fixed figure; the answer says which.
 */
@Controller()
export class DurationEstimateController {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(SETTINGS) private readonly settings: ApiSettings,
  ) {}

  @Route(ROUTES.durationEstimate)
  async estimate(@Valid('query') q: Parsed<typeof ROUTES.durationEstimate, 'query'>): Promise<DurationEstimate> {
    const staleMs = this.settings.workerStaleMs;
    const engines = await onlineWorkerEngines(this.db, staleMs);
    const slowWorkers = engines.filter((w) => isSlowEngine(w.engine as Engine)).map((w) => w.name);
    const measured = (source: 'workers' | 'runs', m: MeasuredRates): DurationEstimate => ({
      preset: q.preset,
      source,
      stepSecondsPer1k: m.stepSecondsPer1k!,
      // a preset measured only between validations: those keep the fixed figure
      validationSecondsPer1k: m.validationSecondsPer1k ?? STATIC_SECONDS_PER_1K_TOKENS,
      steps: m.steps,
      runs: m.runs,
      workers: m.workers,
      slowWorkers,
    });
    const onWorkers = await onlineWorkerRates(this.db, { ...q, staleMs });
    if (onWorkers.stepSecondsPer1k !== null) return measured('workers', onWorkers);
    const lastRuns = await lastRunsRates(this.db, q);
    if (lastRuns.stepSecondsPer1k !== null) return measured('runs', lastRuns);
    return {
      preset: q.preset,
      source: 'static',
      stepSecondsPer1k: STATIC_SECONDS_PER_1K_TOKENS,
      validationSecondsPer1k: STATIC_SECONDS_PER_1K_TOKENS,
      steps: 0,
      runs: 0,
      workers: [],
      slowWorkers,
    };
  }
}
