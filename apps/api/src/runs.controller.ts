import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import { SkipThrottle, ThrottlerGuard } from '@nestjs/throttler';
import {
  toMetricColumns,
  type CheckpointInfo,
  type LogLine,
  type Page,
  type RunDetail,
  type RunMetricColumns,
  type RunMetricSeries,
  type RunSummary,
} from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, MinRole, type Actor } from './auth/actor.js';
import { IngestService } from './ingest.service.js';
import { MetricsService, seriesCsv } from './metrics.service.js';
import { RunsService } from './runs.service.js';
import { TrajectoriesService } from './trajectories.service.js';

@Controller('api/runs')
export class RunsController {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(TrajectoriesService) private readonly trajectories: TrajectoriesService,
    @Inject(IngestService) private readonly ingest: IngestService,
  ) {}

  /** Queue a run from a preset plus overrides (or create an external one); 400 lists every wrong field. */
  @MinRole('member')
  @Post()
  @HttpCode(201)
  async create(
    @CurrentActor() a: Actor,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RunDetail> {
    const { detail, created } = await this.runs.create(a, body, key);
    // a retry with the key of a run created within 24 h: that run again, not a new one
    if (!created) res.status(200).setHeader('Idempotent-Replayed', 'true');
    return detail;
  }

  @Get()
  list(@CurrentActor() a: Actor, @Query() query: unknown): Promise<Page<RunSummary>> {
    return this.runs.list(a, query);
  }

  @Get(':id')
  get(@CurrentActor() a: Actor, @Param('id') id: string): Promise<RunDetail> {
    return this.runs.get(a, id);
  }

  @MinRole('member')
  @Patch(':id')
  update(@CurrentActor() a: Actor, @Param('id') id: string, @Body() body: unknown): Promise<RunDetail> {
    return this.runs.update(a, id, body);
  }

  @MinRole('member')
  @Post(':id/cancel')
  @HttpCode(202)
  cancel(@CurrentActor() a: Actor, @Param('id') id: string): Promise<RunDetail> {
    return this.runs.cancel(a, id);
  }

  @MinRole('member')
  @Post(':id/clone')
  @HttpCode(201)
  clone(@CurrentActor() a: Actor, @Param('id') id: string, @Body() body: unknown): Promise<RunDetail> {
    return this.runs.clone(a, id, body);
  }

  @MinRole('member')
  @Post(':id/resume')
  @HttpCode(202)
  resume(@CurrentActor() a: Actor, @Param('id') id: string): Promise<RunDetail> {
    return this.runs.resume(a, id);
  }

  @MinRole('member')
  @Delete(':id')
  @HttpCode(204)
  remove(@CurrentActor() a: Actor, @Param('id') id: string): Promise<void> {
    return this.runs.remove(a, id);
  }

  /** `?keys=a,b&from=&to=&maxPoints=&format=csv|columns` */
  @Get(':id/metrics')
  async runMetrics(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Query() query: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | Omit<RunMetricSeries, 'runId'>[] | Omit<RunMetricColumns, 'runId'>[]> {
    await this.runs.find(a, id);
    const { series, format } = await this.metrics.series(a, query, id);
    if (format === 'csv') {
      res.type('text/csv').attachment(`${id}-metrics.csv`);
      return seriesCsv(series);
    }
    if (format === 'columns') return toMetricColumns(series).map(({ runId: _, ...c }) => c);
    return series.map(({ runId: _, ...s }) => s);
  }

  @Get(':id/metric-keys')
  async metricKeys(@CurrentActor() a: Actor, @Param('id') id: string): Promise<string[]> {
    await this.runs.find(a, id);
    return this.metrics.keys(id);
  }

  @Get(':id/trajectories')
  async listTrajectories(@CurrentActor() a: Actor, @Param('id') id: string, @Query() query: unknown) {
    await this.runs.find(a, id);
    return this.trajectories.list(id, query);
  }

  /** Flag counts and the most frequent contradicted claims in a step range, with example turns. */
  @Get(':id/diagnostics')
  async diagnostics(@CurrentActor() a: Actor, @Param('id') id: string, @Query() query: unknown) {
    await this.runs.find(a, id);
    return this.trajectories.diagnostics(id, query);
  }

  /** Every matching trajectory with its turns, one JSON object a line, streamed. */
  @Get(':id/trajectories.jsonl')
  async exportTrajectories(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Query() query: unknown,
    @Res() res: Response,
  ): Promise<void> {
    await this.runs.find(a, id);
    const rows = this.trajectories.export(id, query);
    const first = await rows.next(); // validation errors surface here, before the headers go out
    res.attachment(`${id}-trajectories.jsonl`).type('application/x-ndjson');
    if (!first.done) res.write(`${JSON.stringify(first.value)}\n`);
    for await (const row of rows) if (!res.write(`${JSON.stringify(row)}\n`)) await new Promise((r) => res.once('drain', r));
    res.end();
  }

  @Get(':id/checkpoints')
  checkpoints(@CurrentActor() a: Actor, @Param('id') id: string): Promise<CheckpointInfo[]> {
    return this.runs.checkpoints(a, id);
  }

  /** Log lines after id `after` (for tailing); `warnings=1`: only the warnings (lines with a code). */
  @Get(':id/logs')
  logs(@CurrentActor() a: Actor, @Param('id') id: string, @Query() query: unknown): Promise<LogLine[]> {
    return this.runs.logs(a, id, query);
  }

  @MinRole('member')
  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ default: true })
  @Post(':id/ingest/metrics')
  @HttpCode(200)
  async ingestMetrics(@CurrentActor() a: Actor, @Param('id') id: string, @Body() body: unknown) {
    return this.ingest.metrics(await this.runs.find(a, id), body);
  }

  @MinRole('member')
  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ default: true })
  @Post(':id/ingest/trajectories')
  @HttpCode(200)
  async ingestTrajectories(@CurrentActor() a: Actor, @Param('id') id: string, @Body() body: unknown) {
    return this.ingest.trajectories(await this.runs.find(a, id), body);
  }

  @MinRole('member')
  @Post(':id/ingest/finish')
  @HttpCode(200)
  async finish(@CurrentActor() a: Actor, @Param('id') id: string, @Body() body: unknown): Promise<RunDetail> {
    await this.ingest.finish(await this.runs.find(a, id), body);
    return this.runs.get(a, id);
  }
}
