import { Controller, Headers, Inject, Res } from '@nestjs/common';
import { Route, Valid, type Parsed } from './route.js';
import { ROUTES } from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, type Actor } from './auth/actor.js';
import { renderMetrics, sendMetrics } from './metrics-response.js';
import { MetricsService } from './metrics.service.js';

/** Metric series across runs (one run's series are under /api/runs/:id/metrics). */
@Controller()
export class MetricsController {
  constructor(@Inject(MetricsService) private readonly metrics: MetricsService) {}

  /** `?runs=a,b&keys=x,y&from=&to=&maxPoints=&format=csv|columns` — for comparing runs. */
  @Route(ROUTES.metrics)
  async metricSeries(
    @CurrentActor() a: Actor,
    @Valid('query') query: Parsed<typeof ROUTES.metrics, 'query'>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const answer = await this.metrics.answer(a, query, undefined, ifNoneMatch, `runs ${query.format}`, (series) =>
      renderMetrics(series, query.format, true),
    );
    sendMetrics(res, answer, query.format, 'metrics.csv');
  }
}
