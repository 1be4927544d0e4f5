import { Controller, Inject, Param } from '@nestjs/common';
import { Route } from './route.js';
import { ROUTES, type TrajectoryDetail } from '@starpo/contracts';
import { CurrentActor, type Actor } from './auth/actor.js';
import { TrajectoriesService } from './trajectories.service.js';

/** One trajectory by id (a run's pages of trajectories are under /api/runs/:id/trajectories). */
@Controller()
export class TrajectoriesController {
  constructor(@Inject(TrajectoriesService) private readonly trajectories: TrajectoriesService) {}

  @Route(ROUTES.trajectory)
  trajectory(@CurrentActor() a: Actor, @Param('id') id: string): Promise<TrajectoryDetail> {
    return this.trajectories.get(a, id);
  }
}
