import { Controller, Inject, Param, Res } from '@nestjs/common';
import { Route, Valid, type Parsed } from '../route.js';
import { ROUTES, type ClaimVerdictView, type TeamVerdictSummary } from '@starpo/contracts';
import type { Response } from 'express';
import { CurrentActor, type Actor } from '../auth/actor.js';
import { VerdictsService } from './verdicts.service.js';

/** A team's verdicts on the reasoning checker's flags: marking (members), listing, precision and export (anyone in the team). */
@Controller()
export class VerdictsController {
  constructor(@Inject(VerdictsService) private readonly verdicts: VerdictsService) {}

  @Route(ROUTES.markClaim)
  mark(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Param('turn') turn: string,
    @Valid('body') body: Parsed<typeof ROUTES.markClaim, 'body'>,
  ): Promise<ClaimVerdictView> {
    return this.verdicts.mark(a, id, turn, body);
  }

  @Route(ROUTES.verdicts)
  list(@CurrentActor() a: Actor, @Param('id') id: string): Promise<ClaimVerdictView[]> {
    return this.verdicts.list(a, id);
  }

  @Route(ROUTES.verdictPrecision)
  precision(@CurrentActor() a: Actor): Promise<TeamVerdictSummary> {
    return this.verdicts.summary(a);
  }

  @Route(ROUTES.exportVerdicts)
  async export(@CurrentActor() a: Actor, @Res() res: Response): Promise<void> {
    const rows = await this.verdicts.export(a);
    res.attachment('verdicts.jsonl').type('application/x-ndjson');
    res.send(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
}
