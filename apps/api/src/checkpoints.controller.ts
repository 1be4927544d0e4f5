import { Controller, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import { Route } from './route.js';
import { ROUTES } from '@starpo/contracts';
import { findTeamCheckpoint, streamCheckpointFile, type Db } from '@starpo/db';
import type { Response } from 'express';
import { CurrentActor, type Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';
import { isUuid } from './validation.js';

/** Checkpoint file downloads (a run's list of checkpoints is under /api/runs/:id/checkpoints). */
@Controller()
export class CheckpointsController {
  constructor(@Inject(DB) private readonly db: Db) {}

  /** Streams the stored chunks; the sha256 is checked on the way and a corrupt file aborts the transfer. */
  @Route(ROUTES.downloadCheckpoint)
  async download(@CurrentActor() a: Actor, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const ck = isUuid(id) ? await findTeamCheckpoint(this.db, a.teamId, id) : null;
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
}
