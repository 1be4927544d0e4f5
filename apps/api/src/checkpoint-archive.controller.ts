import { Controller, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import { Route, Valid, type Parsed } from './route.js';
import { ROUTES } from '@starpo/contracts';
import { checkpointStepFiles, latestArchiveStep, streamCheckpointFile, type Db } from '@starpo/db';
import type { Response } from 'express';
import { pack } from 'tar-stream';
import { CurrentActor, type Actor } from './auth/actor.js';
import { RunsService } from './runs.service.js';
import { DB } from './di-tokens.js';

/** A ustar entry: a 512-byte header, then the data padded to 512 bytes. */
const entryBytes = (size: number) => 512 + Math.ceil(size / 512) * 512;

/**
 * One checkpoint step as a single tar: its files plus a SHA256SUMS that `sha256sum -c` checks.
 * Streamed one chunk at a time (multi-GB checkpoints never sit in memory); a file whose stored
 * sha256 does not match aborts the transfer, so the client sees a truncated archive, never a corrupt one.
 */
@Controller()
export class CheckpointArchiveController {
  constructor(
    @Inject(DB) private readonly db: Db,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  /** `?step=N`; without it the latest complete checkpoint (the step that has state.json), else the latest step. */
  @Route(ROUTES.checkpointArchive)
  async archive(
    @CurrentActor() a: Actor,
    @Param('id') id: string,
    @Valid('query') q: Parsed<typeof ROUTES.checkpointArchive, 'query'>,
    @Res() res: Response,
  ): Promise<void> {
    await this.runs.find(a, id);
    const step = q.step ?? (await latestArchiveStep(this.db, id));
    const files = step === undefined ? [] : await checkpointStepFiles(this.db, id, step);
    if (!files.length)
      throw new NotFoundException(step === undefined ? `run ${id} has no checkpoint` : `run ${id} has no checkpoint at step ${step}`);

    const dir = `step-${step}`;
    const sums = Buffer.from(files.map((f) => `${f.sha256}  ${f.kind}\n`).join(''));
    const names = [`${dir}/SHA256SUMS`, ...files.map((f) => `${dir}/${f.kind}`)];
    res.setHeader('Content-Type', 'application/x-tar');
    // names under 100 bytes fit the plain ustar header, so the size is known before the first byte
    if (names.every((n) => Buffer.byteLength(n) < 100))
      res.setHeader(
        'Content-Length',
        String(entryBytes(sums.byteLength) + files.reduce((n, f) => n + entryBytes(Number(f.sizeBytes)), 1024)),
      );
    res.attachment(`${id}-${dir}.tar`);

    const tar = pack();
    tar.pipe(res);
    try {
      tar.entry({ name: names[0]!, size: sums.byteLength, mode: 0o644 }, sums);
      for (const f of files) {
        let entry!: ReturnType<typeof tar.entry>;
        // the callback runs once the entry is flushed into the archive (or fails)
        const written = new Promise<void>((resolve, reject) => {
          entry = tar.entry({ name: `${dir}/${f.kind}`, size: Number(f.sizeBytes), mode: 0o644 }, (err) => (err ? reject(err) : resolve()));
        });
        written.catch(() => {}); // a corrupt file destroys the entry below; the catch block has handled it
        for await (const chunk of streamCheckpointFile(this.db, f.id))
          if (!entry.write(chunk)) await new Promise<void>((r) => entry.once('drain', () => r()));
        entry.end(undefined);
        await written;
      }
      tar.finalize();
    } catch {
      tar.destroy();
      res.destroy(); // truncated, never silently corrupt
    }
  }
}
