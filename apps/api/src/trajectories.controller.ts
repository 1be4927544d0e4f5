import { Controller, Get, Inject, Param } from '@nestjs/common';
import type { TrajectoryDetail } from '@starpo/contracts';
import { CurrentActor, type Actor } from './auth/actor.js';
import { TrajectoriesService } from './trajectories.service.js';

/** One trajectory by id (a run's pages of trajectories are under /api/runs/:id/trajectories). */
@Controller('api/trajectories')
export class TrajectoriesController {
  constructor(@Inject(TrajectoriesService) private readonly trajectories: TrajectoriesService) {}

  @Get(':id')
  trajectory(@CurrentActor() a: Actor, @Param('id') id: string): Promise<TrajectoryDetail> {
    return this.trajectories.get(a, id);
  }
}
