import { Controller, Inject, Res } from '@nestjs/common';
import { Route, Valid, type Parsed } from './route.js';
import { toMetricColumns, type RunMetricColumns, type RunMetricSeries, ROUTES } from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, type Actor } from './auth/actor.js';
import { MetricsService, seriesCsv } from './metrics.service.js';

/** Metric series across runs (one run's series are under /api/runs/:id/metrics). */
@Controller()
export class MetricsController {
  constructor(@Inject(MetricsService) private readonly metrics: MetricsService) {}

  /** `?runs=a,b&keys=x,y&from=&to=&maxPoints=&format=csv|columns` — for comparing runs. */
  @Route(ROUTES.metrics)
  async metricSeries(
    @CurrentActor() a: Actor,
    @Valid('query') query: Parsed<typeof ROUTES.metrics, 'query'>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | RunMetricSeries[] | RunMetricColumns[]> {
    const { series, format } = await this.metrics.series(a, query);
    if (format === 'csv') {
      res.type('text/csv').attachment('metrics.csv');
      return seriesCsv(series);
    }
    return format === 'columns' ? toMetricColumns(series) : series;
  }
}
