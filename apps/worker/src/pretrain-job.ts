import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBaseModelSchema } from '@starpo/contracts';
import { readCheckpointFile, retryWhileDown, storeCheckpointFile, upsertMetrics, type Db } from '@starpo/db';
import { pretrain, PRETRAIN_DEFAULTS, throwIfStopped, type TrainResult } from '@starpo/trainer';
import type { JobContext } from './job.js';

/**
 * A queued pretrain job (`POST /api/base-models`): supervised warm start on teacher dialogues,
 * then the model files are stored as step-0 checkpoints of the job's run and registered as the
 * team's base model, which training runs then name in `model.base`. It keeps no checkpoint of its
 * own: a stop throws StopRequested before anything is stored (a requeued job starts over; it is
 * deterministic and minutes long), and the run then ends as executeRun says.
 */
export async function executePretrain({ db, run, sink, signal, log }: JobContext): Promise<TrainResult> {
  const lease = run.leaseEpoch;
  const out = mkdtempSync(path.join(os.tmpdir(), 'starpo-pretrain-'));
  let writes = Promise.resolve();
  try {
    const o = createBaseModelSchema.parse((run.config as { pretrain?: unknown }).pretrain);
    log(`run ${run.id}: pretraining base model "${o.name}" (${o.env}, ${o.size})`);
    let total = 0;
    let lastWrite = 0;
    // progress is best effort, written in order and settled before the job ends: a late `running` must not follow its end
    const later = (write: () => Promise<void>) => void (writes = writes.then(write).catch(() => {}));
    await sink.status({ status: 'running', step: 0, totalSteps: 0 });
    const result = await pretrain(
      {
        ...PRETRAIN_DEFAULTS,
        env: o.env,
        size: o.size,
        out,
        dialogues: o.dialogues,
        epochs: o.epochs,
        batchSize: o.batchSize,
        lr: o.lr,
        randomActionShare: o.randomShare,
        valSize: o.valSize,
        seed: o.seed,
        signal,
      },
      {
        phase: (name, t) => {
          total = t ?? 0;
          later(() => sink.log('info', `phase: ${name}${t ? ` (${t})` : ''}`));
        },
        progress: (done, info) => {
          if (Date.now() - lastWrite < 2000) return; // progress, not a stream of writes
          lastWrite = Date.now();
          later(() => sink.status({ status: 'running', step: done, totalSteps: total }));
          const loss = Number(info?.loss);
          if (Number.isFinite(loss)) later(() => sink.metrics(done, { 'pretrain/loss': loss }));
        },
        log: (m) => later(() => sink.log('info', m)),
      },
    );
    await writes;
    throwIfStopped(signal); // a stop as the last phase ended: nothing is registered
    const files = readdirSync(out).filter((f) => !f.startsWith('.'));
    for (const f of files)
      await retryWhileDown(() =>
        storeCheckpointFile(db, run.id, 0, f, readFileSync(path.join(out, f)), f.endsWith('.safetensors') ? 'safetensors' : 'json', {
          lease,
        }),
      );
    const weights = await db.checkpoint.findFirst({ where: { runId: run.id, step: 0, kind: 'model.safetensors' } });
    const metrics = {
      formatRate: result.formatRate,
      validReplyRate: result.validReplyRate,
      success: result.success,
      finalLoss: result.finalLoss,
      params: result.params,
      seconds: result.seconds,
    };
    await db.baseModel.create({
      data: {
        teamId: run.teamId,
        name: o.name,
        architecture: JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8')) as object,
        tokenizer: JSON.parse(readFileSync(path.join(out, 'tokenizer_config.json'), 'utf8')) as object,
        source: 'pretrain',
        metrics,
        runId: run.id,
        checkpointId: weights?.id ?? null,
      },
    });
    const final = Math.max(1, total);
    await upsertMetrics(
      db,
      run.id,
      final,
      {
        'pretrain/final_loss': result.finalLoss,
        'pretrain/well_formed_rate': result.formatRate,
        ...Object.fromEntries(Object.entries(result.success).map(([env, s]) => [`val/${env}/success`, s])),
      },
      new Date(),
      { lease },
    );
    await sink.status({ status: 'succeeded', step: final, totalSteps: final });
    return { status: 'succeeded', step: final };
  } finally {
    await writes;
    rmSync(out, { recursive: true, force: true });
  }
}

/** Write a stored base model's files to a temporary folder (for `loadBaseModel`); null when `name` is none of the team's. */
export async function materializeBaseModel(db: Db, teamId: string, name: string): Promise<{ dir: string; cleanup: () => void } | null> {
  const bm = await db.baseModel.findFirst({ where: { OR: [{ teamId }, { teamId: null }], name } });
  if (!bm?.runId) return null;
  const files = await db.checkpoint.findMany({ where: { runId: bm.runId, step: 0 } });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'starpo-base-'));
  // a stored kind is a plain file name (model.safetensors, ...); basename keeps any other inside the folder
  for (const f of files) writeFileSync(path.join(dir, path.basename(f.kind)), await readCheckpointFile(db, f.id));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
