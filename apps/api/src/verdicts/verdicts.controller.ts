import { Body, Controller, Get, Inject, Param, Post, Res } from '@nestjs/common';
import type { ClaimVerdictView, TeamVerdictSummary } from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, MinRole, type Actor } from '../auth/actor.js';
import { VerdictsService } from './verdicts.service.js';

/** A team's verdicts on the reasoning checker's flags: marking (members), listing, precision and export (anyone in the team). */
@Controller('api')
export class VerdictsController {
  constructor(@Inject(VerdictsService) private readonly verdicts: VerdictsService) {}

  @MinRole('member')
  @Post('trajectories/:id/turns/:turn/verdicts')
  mark(@CurrentActor() a: Actor, @Param('id') id: string, @Param('turn') turn: string, @Body() body: unknown): Promise<ClaimVerdictView> {
    return this.verdicts.mark(a, id, turn, body);
  }

  @Get('trajectories/:id/verdicts')
  list(@CurrentActor() a: Actor, @Param('id') id: string): Promise<ClaimVerdictView[]> {
    return this.verdicts.list(a, id);
  }

  @Get('verdicts/precision')
  precision(@CurrentActor() a: Actor): Promise<TeamVerdictSummary> {
    return this.verdicts.summary(a);
  }

  @Get('verdicts.jsonl')
  async export(@CurrentActor() a: Actor, @Res() res: Response): Promise<void> {
    const rows = await this.verdicts.export(a);
    res.attachment('verdicts.jsonl').type('application/x-ndjson');
    res.send(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
}
