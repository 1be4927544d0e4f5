import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import { SHIPPED_BASES } from '@starpo/contracts';
import { streamCheckpointFile, type Db } from '@starpo/db';
import type { Response } from 'express';
import { CurrentActor, MinRole, type Actor } from './auth/actor.js';
import { MetricsService, seriesCsv } from './metrics.service.js';
import { RunsService, type RunDetail } from './runs.service.js';
import { DB } from './tokens.js';
import { TrajectoriesService } from './trajectories.service.js';
import { isUuid } from './validation.js';

/** Reads that are not under one run: multi-run metrics, a trajectory, a checkpoint, workers, base models. */
@Controller('api')
export class DataController {
  constructor(
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(TrajectoriesService) private readonly trajectories: TrajectoriesService,
    @Inject(DB) private readonly db: Db,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  /** `?runs=a,b&keys=x,y&from=&to=&maxPoints=&format=csv` — for comparing runs. */
  @Get('metrics')
  async metricSeries(@CurrentActor() a: Actor, @Query() query: unknown, @Res({ passthrough: true }) res: Response) {
    const { series, format } = await this.metrics.series(a, query);
    if (format === 'csv') {
      res.type('text/csv').attachment('metrics.csv');
      return seriesCsv(series);
    }
    return series;
  }

  @Get('trajectories/:id')
  trajectory(@CurrentActor() a: Actor, @Param('id') id: string) {
    return this.trajectories.get(a, id);
  }

  /** Streams the stored chunks; the sha256 is checked on the way and a corrupt file aborts the transfer. */
  @Get('checkpoints/:id/download')
  async download(@CurrentActor() a: Actor, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const ck = isUuid(id) ? await this.db.checkpoint.findFirst({ where: { id, run: { teamId: a.teamId } } }) : null;
    if (!ck) throw new NotFoundException(`checkpoint ${id} not found`);
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Length', String(ck.sizeBytes));
    res.setHeader('X-Checksum-Sha256', ck.sha256);
    res.attachment(`${ck.runId}-step${ck.step}-${ck.kind}`);
    try {
      for await (const chunk of streamCheckpointFile(this.db, ck.id)) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      res.end();
    } catch {
      res.destroy(); // the client sees a truncated body, never a silently corrupt one
    }
  }

  /** Workers are shared infrastructure; another team's current run is not named. */
  @Get('workers')
  async workers(@CurrentActor() a: Actor) {
    const rows = await this.db.worker.findMany({
      orderBy: { startedAt: 'desc' },
      include: { runs: { where: { status: 'running' }, select: { id: true, teamId: true, name: true } } },
    });
    const staleMs = Number(process.env.WORKER_STALE_MS ?? 60_000);
    return rows.map((w) => {
      // no heartbeat for the stale timeout: the process is gone (or frozen); it no longer counts as busy
      const lost = w.status !== 'offline' && Date.now() - w.lastHeartbeat.getTime() > staleMs;
      const run = lost ? undefined : w.runs.find((r) => r.id === w.currentRunId);
      return {
        id: w.id,
        name: w.name,
        host: w.host,
        backend: w.backend,
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

  /** 202: a pretrain job is queued; the base model appears in the list when it succeeds. */
  @MinRole('member')
  @Post('base-models')
  @HttpCode(202)
  createBaseModel(@CurrentActor() a: Actor, @Body() body: unknown): Promise<RunDetail> {
    return this.runs.createPretrain(a, body);
  }

  @Get('base-models')
  async baseModels(@CurrentActor() a: Actor) {
    const rows = await this.db.baseModel.findMany({
      where: { OR: [{ teamId: a.teamId }, { teamId: null }] },
      orderBy: { createdAt: 'desc' },
    });
    const builtin = [
      ...SHIPPED_BASES.map((b) => ({ id: b.name, name: b.name, source: 'shipped', description: b.description, metrics: {} })),
      ...['starpo-tiny/nano', 'starpo-tiny/tiny', 'starpo-tiny/small'].map((name) => ({
        id: name,
        name,
        source: 'builtin',
        description: 'from scratch (random weights)',
        metrics: {},
      })),
    ];
    return [
      ...builtin,
      ...rows.map((b) => ({ id: b.id, name: b.name, source: b.source, metrics: b.metrics, createdAt: b.createdAt.toISOString() })),
    ];
  }
}
