import { Controller, Inject } from '@nestjs/common';
import { Route, Valid, type Parsed } from './route.js';
import { SHIPPED_BASES, STARPO_TINY_SIZES, type BaseModelInfo, type RunDetail, ROUTES } from '@starpo/contracts';
import { teamBaseModels, type Db } from '@starpo/db';
import { CurrentActor, type Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';
import { RunsService } from './runs.service.js';

/** Base models a run can start from: shipped, from scratch, and the team's pretrained ones. */
@Controller()
export class BaseModelsController {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  /** 202: a pretrain job is queued; the base model appears in the list when it succeeds. */
  @Route(ROUTES.createBaseModel)
  createBaseModel(@CurrentActor() a: Actor, @Valid('body') body: Parsed<typeof ROUTES.createBaseModel, 'body'>): Promise<RunDetail> {
    return this.runs.createPretrain(a, body);
  }

  @Route(ROUTES.baseModels)
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
