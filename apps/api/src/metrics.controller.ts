import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { toMetricColumns, type RunMetricColumns, type RunMetricSeries } from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, type Actor } from './auth/actor.js';
import { MetricsService, seriesCsv } from './metrics.service.js';

/** Metric series across runs (one run's series are under /api/runs/:id/metrics). */
@Controller('api/metrics')
export class MetricsController {
  constructor(@Inject(MetricsService) private readonly metrics: MetricsService) {}

  /** `?runs=a,b&keys=x,y&from=&to=&maxPoints=&format=csv|columns` — for comparing runs. */
  @Get()
  async metricSeries(
    @CurrentActor() a: Actor,
    @Query() query: unknown,
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
