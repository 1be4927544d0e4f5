import { Controller, Headers, Inject, Param, Res, UseGuards } from '@nestjs/common';
import { Route, Valid, type Parsed } from './route.js';
import { SkipThrottle, ThrottlerGuard } from '@nestjs/throttler';
import { type CheckpointInfo, type LogLine, type Page, type PruneResult, type RunDetail, type RunSummary, ROUTES } from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, type Actor } from './auth/actor.js';
import { IngestService } from './ingest.service.js';
import { renderMetrics, sendMetrics } from './metrics-response.js';
import { MetricsService } from './metrics.service.js';
import { RunsService } from './runs.service.js';
import { SharedRead } from './shared-reads.js';
import { TrajectoriesService } from './trajectories.service.js';

@Controller()
export class RunsController {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(TrajectoriesService) private readonly trajectories: TrajectoriesService,
    @Inject(IngestService) private readonly ingest: IngestService,
  ) {}

  /** Queue a run from a preset plus overrides (or create an external one); 400 lists every wrong field. */
  @Route(ROUTES.createRun)
  async create(
    @CurrentActor() a: Actor,
    @Valid('body') body: Parsed<typeof ROUTES.createRun, 'body'>,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RunDetail> {
    const { detail, created } = await this.runs.create(a, body, key);
    // a retry with the key of a run created within 24 h: that run again, not a new one
    if (!created) res.status(200).setHeader('Idempotent-Replayed', 'true');
    return detail;
  }

  @SharedRead()
  @Route(ROUTES.runs)
  list(@CurrentActor() a: Actor, @Valid('query') query: Parsed<typeof ROUTES.runs, 'query'>): Promise<Page<RunSummary>> {
    return this.runs.list(a, query);
  }

  @Route(ROUTES.run)
  get(@CurrentActor() a: Actor, @Param('id') id: string): Promise<RunDetail> {
    return this.runs.get(a, id);
  }

  @Route(ROUTES.updateRun)
  update(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('body') body: Parsed<typeof ROUTES.updateRun, 'body'>,
  ): Promise<RunDetail> {
    return this.runs.update(a, id, body);
  }

  @Route(ROUTES.cancelRun)
  cancel(@CurrentActor() a: Actor, @Param('id') id: string): Promise<RunDetail> {
    return this.runs.cancel(a, id);
  }

  @Route(ROUTES.pruneRun)
  prune(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('body') body: Parsed<typeof ROUTES.pruneRun, 'body'>,
  ): Promise<PruneResult> {
    return this.runs.prune(a, id, body);
  }

  @Route(ROUTES.cloneRun)
  clone(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('body') body: Parsed<typeof ROUTES.cloneRun, 'body'>,
  ): Promise<RunDetail> {
    return this.runs.clone(a, id, body);
  }

  @Route(ROUTES.resumeRun)
  resume(@CurrentActor() a: Actor, @Param('id') id: string): Promise<RunDetail> {
    return this.runs.resume(a, id);
  }

  @Route(ROUTES.deleteRun)
  remove(@CurrentActor() a: Actor, @Param('id') id: string): Promise<void> {
    return this.runs.remove(a, id);
  }

  /** `?keys=a,b&from=&to=&maxPoints=&format=csv|columns` */
  @Route(ROUTES.runMetrics)
  async runMetrics(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('query') query: Parsed<typeof ROUTES.runMetrics, 'query'>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const answer = await this.metrics.answer(a, query, id, ifNoneMatch, `run ${query.format}`, (series) =>
      renderMetrics(series, query.format, false),
    );
    sendMetrics(res, answer, query.format, `${id}-metrics.csv`);
  }

  @Route(ROUTES.metricKeys)
  async metricKeys(@CurrentActor() a: Actor, @Param('id') id: string): Promise<string[]> {
    await this.runs.find(a, id);
    return this.metrics.keys(id);
  }

  @SharedRead()
  @Route(ROUTES.trajectories)
  async listTrajectories(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('query') query: Parsed<typeof ROUTES.trajectories, 'query'>,
  ) {
    await this.runs.find(a, id);
    return this.trajectories.list(id, query);
  }

  /** Flag counts and the most frequent contradicted claims in a step range, with example turns. */
  @Route(ROUTES.diagnostics)
  async diagnostics(@CurrentActor() a: Actor, @Param('id') id: string, @Valid('query') query: Parsed<typeof ROUTES.diagnostics, 'query'>) {
    await this.runs.find(a, id);
    return this.trajectories.diagnostics(id, query);
  }

  /** Every matching trajectory with its turns, one JSON object a line, streamed. */
  @Route(ROUTES.exportTrajectories)
  async exportTrajectories(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('query') query: Parsed<typeof ROUTES.exportTrajectories, 'query'>,
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

  @Route(ROUTES.checkpoints)
  checkpoints(@CurrentActor() a: Actor, @Param('id') id: string): Promise<CheckpointInfo[]> {
    return this.runs.checkpoints(a, id);
  }

  /** Log lines after id `after` (for tailing); `warnings=1`: only the warnings (lines with a code). */
  @Route(ROUTES.logs)
  logs(@CurrentActor() a: Actor, @Param('id') id: string, @Valid('query') query: Parsed<typeof ROUTES.logs, 'query'>): Promise<LogLine[]> {
    return this.runs.logs(a, id, query);
  }

  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ default: true })
  @Route(ROUTES.ingestMetrics)
  async ingestMetrics(@CurrentActor() a: Actor, @Param('id') id: string, @Valid('body') body: Parsed<typeof ROUTES.ingestMetrics, 'body'>) {
    return this.ingest.metrics(a, id, body);
  }

  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ default: true })
  @Route(ROUTES.ingestTrajectories)
  async ingestTrajectories(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('body') body: Parsed<typeof ROUTES.ingestTrajectories, 'body'>,
  ) {
    return this.ingest.trajectories(await this.runs.find(a, id), body);
  }

  @Route(ROUTES.finishRun)
  async finish(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('body') body: Parsed<typeof ROUTES.finishRun, 'body'>,
  ): Promise<RunDetail> {
    await this.ingest.finish(await this.runs.find(a, id), body);
    return this.runs.get(a, id);
  }
}
