import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { MetricSeries, RunSummary } from '@starpo/contracts';
import { RunsService } from './runs.service.js';

@Controller('api/runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  /** Queue a run from a preset plus overrides; 400 lists every wrong field. */
  @Post()
  @HttpCode(201)
  create(@Body() body: unknown): Promise<RunSummary> {
    return this.runs.create(body);
  }

  @Get()
  list(): Promise<RunSummary[]> {
    return this.runs.list();
  }

  @Get(':id')
  get(@Param('id') id: string): Promise<unknown> {
    return this.runs.getSummary(id);
  }

  /** Metric series of a run: `?keys=a,b` (all keys when omitted). */
  @Get(':id/metrics')
  metrics(@Param('id') id: string, @Query('keys') keys?: string): Promise<MetricSeries[]> {
    return this.runs.metrics(id, keys ? keys.split(',').filter(Boolean) : []);
  }
}
