import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { SHIPPED_BASES, STARPO_TINY_SIZES, type BaseModelInfo, type RunDetail } from '@starpo/contracts';
import { teamBaseModels, type Db } from '@starpo/db';
import { CurrentActor, MinRole, type Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';
import { RunsService } from './runs.service.js';

/** Base models a run can start from: shipped, from scratch, and the team's pretrained ones. */
@Controller('api/base-models')
export class BaseModelsController {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  /** 202: a pretrain job is queued; the base model appears in the list when it succeeds. */
  @MinRole('member')
  @Post()
  @HttpCode(202)
  createBaseModel(@CurrentActor() a: Actor, @Body() body: unknown): Promise<RunDetail> {
    return this.runs.createPretrain(a, body);
  }

  @Get()
  async baseModels(@CurrentActor() a: Actor): Promise<BaseModelInfo[]> {
    const rows = await teamBaseModels(this.db, a.teamId);
    const builtin: BaseModelInfo[] = [
      ...SHIPPED_BASES.map((b) => ({ id: b.name, name: b.name, source: 'shipped', description: b.description, metrics: {} })),
      ...STARPO_TINY_SIZES.map((size) => `starpo-tiny/${size}`).map((name) => ({
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
