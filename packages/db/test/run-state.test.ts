import { FINISHED_STATUSES, RUN_STATUSES, type RunStatusName } from '@starpo/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RUN_TRANSITIONS,
  RunStatus,
  canTransition,
  cancelRun,
  claimRun,
  createDb,
  deletionRefusal,
  finishExternalRun,
  initialRunStatus,
  LeaseLostError,
  releaseRun,
  reportRunStatus,
  resumeRun,
  sweepStaleRuns,
  type Db,
  type RunKind,
  type RunTransitionName,
} from '../src/index.js';
import { freshDatabase, type TestDatabase } from '../src/testing.js';

const KINDS: RunKind[] = ['train', 'pretrain', 'external'];

/** Every (status, kind) pair, so each status-guarded change is tried from every state a run can be in. */
const STATES = RUN_STATUSES.flatMap((status) => KINDS.map((kind) => ({ status, kind })));

describe('run state changes follow RUN_TRANSITIONS', () => {
  let database: TestDatabase;
  let db: Db;
  let teamId: string;
  let workerId: string;
  beforeAll(async () => {
    database = await freshDatabase();
    db = createDb(database.url);
    teamId = (await db.team.create({ data: { name: 'lab' } })).id;
    workerId = (await db.worker.create({ data: { name: 'w', host: 'h', backend: 'cpu', device: 'd' } })).id;
  });
  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  /** A run row put straight into a state (the change under test is the only write afterwards). */
  const runIn = async (status: RunStatusName, kind: RunKind, extra: { cancelRequestedAt?: Date; heartbeatAt?: Date } = {}) =>
    db.run.create({
      data: {
        teamId,
        name: `${kind} ${status}`,
        kind,
        status,
        config: {},
        environment: 'bandit',
        algorithm: 'grpo',
        totalSteps: 3,
        ...extra,
      },
    });
  const statusOf = async (id: string) => (await db.run.findUniqueOrThrow({ where: { id } })).status;
  const allowed = (t: RunTransitionName, status: RunStatusName, kind: RunKind) =>
    canTransition(t, status) && (RUN_TRANSITIONS[t].kinds as readonly RunKind[]).includes(kind);

  it('names only real statuses; a finished run is left only by a resume or an external trainer’s final word', () => {
    for (const [name, t] of Object.entries(RUN_TRANSITIONS)) {
      for (const s of [...t.from, ...t.to]) expect(RUN_STATUSES, name).toContain(s);
      const fromFinished = t.from.filter((s) => (FINISHED_STATUSES as readonly string[]).includes(s));
      if (fromFinished.length) expect(['resume', 'finishExternal'], name).toContain(name);
    }
    expect(RUN_TRANSITIONS.resume.from).toEqual(['failed', 'cancelled']);
  });

  it('the contracts list the same statuses as the database enum', () => {
    expect(Object.values(RunStatus)).toEqual([...RUN_STATUSES]);
  });

  it('a new worker run starts queued, an external one running', () => {
    expect(initialRunStatus('train').status).toBe('queued');
    expect(initialRunStatus('pretrain').status).toBe('queued');
    expect(initialRunStatus('external')).toMatchObject({ status: 'running', startedAt: expect.any(Date) });
    for (const k of KINDS) expect(RUN_TRANSITIONS.create.to).toContain(initialRunStatus(k).status);
  });

  it('claim: only a queued worker run, which becomes running with a higher lease', async () => {
    for (const { status, kind } of STATES) {
      const run = await runIn(status, kind);
      const got = await claimRun(db, run.id, workerId, true);
      expect(got !== null, `${kind} ${status}`).toBe(allowed('claim', status, kind));
      if (got) {
        expect(RUN_TRANSITIONS.claim.to).toContain(got.status);
        expect(got.leaseEpoch).toBe(run.leaseEpoch + 1);
      } else expect(await statusOf(run.id)).toBe(status);
    }
  });

  it('cancel: queued and running runs only; a running worker run is marked, the others end cancelled', async () => {
    for (const { status, kind } of STATES) {
      const run = await runIn(status, kind);
      const moved = await cancelRun(db, run);
      expect(moved, `${kind} ${status}`).toBe(allowed('cancel', status, kind));
      const after = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (!moved) {
        expect(after.status).toBe(status);
        continue;
      }
      expect(RUN_TRANSITIONS.cancel.to).toContain(after.status);
      if (status === 'running' && kind !== 'external') {
        expect(after.status).toBe('running');
        expect(after.cancelRequestedAt).not.toBeNull();
      } else {
        expect(after).toMatchObject({ status: 'cancelled', stopReason: 'cancelled by user', finishedAt: expect.any(Date) });
      }
    }
  });

  it('resume: a failed or cancelled worker run goes back to the queue with its stop cleared', async () => {
    for (const { status, kind } of STATES) {
      const run = await runIn(status, kind, { cancelRequestedAt: new Date() });
      const moved = await resumeRun(db, run.id);
      expect(moved, `${kind} ${status}`).toBe(allowed('resume', status, kind));
      const after = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (moved) expect(after).toMatchObject({ status: 'queued', cancelRequestedAt: null, finishedAt: null, resumeCount: 1 });
      else expect(after.status).toBe(status);
    }
  });

  it('sweep: a running worker run without a heartbeat is requeued, or cancelled when a cancel was asked', async () => {
    const stale = new Date(Date.now() - 60_000);
    const runs = await Promise.all(STATES.map(({ status, kind }) => runIn(status, kind, { heartbeatAt: stale })));
    const asked = await runIn('running', 'train', { heartbeatAt: stale, cancelRequestedAt: new Date() });
    const swept = await sweepStaleRuns(db, 30_000);
    for (const [i, { status, kind }] of STATES.entries()) {
      const id = runs[i]!.id;
      const moved = swept.requeued.includes(id);
      expect(moved, `${kind} ${status}`).toBe(allowed('sweep', status, kind));
      expect(await statusOf(id)).toBe(moved ? 'queued' : status);
    }
    expect(swept.cancelled).toEqual([asked.id]);
    expect(await statusOf(asked.id)).toBe('cancelled');
    // each swept run's log says what happened to it, and no other run's log gets a line
    const logs = await db.runLog.findMany({ where: { message: { contains: 'no heartbeat from its worker' } } });
    expect(logs.map((l) => l.runId).sort()).toEqual([...swept.requeued, ...swept.cancelled].sort());
    expect(logs.find((l) => l.runId === asked.id)!.message).toBe(
      'cancelled at step 0: no heartbeat from its worker for 30 s after a cancel was asked for',
    );
    expect(logs.find((l) => l.runId === swept.requeued[0])!.message).toMatch(
      /^requeued at step 0: no heartbeat from its worker for 30 s; /,
    );
    for (const s of ['queued', 'cancelled'] as const) expect(RUN_TRANSITIONS.sweep.to).toContain(s);
  });

  it('finishExternal: the trainer’s final status is stored whatever the run showed', async () => {
    for (const status of RUN_STATUSES) {
      const run = await runIn(status, 'external');
      expect(canTransition('finishExternal', status)).toBe(true);
      await finishExternalRun(db, run.id, 'stopped_early', 'plateau');
      expect(await db.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
        status: 'stopped_early',
        stopReason: 'plateau',
        finishedAt: expect.any(Date),
      });
    }
  });

  it('report: the lease holder moves its running run to any reported status; an old lease is refused and changes nothing', async () => {
    for (const to of RUN_TRANSITIONS.report.to) {
      const run = (await claimRun(db, (await runIn('queued', 'train')).id, workerId, false))!;
      await reportRunStatus(db, run.id, run.leaseEpoch, { status: to, step: 2, totalSteps: 3, stopReason: 'why' });
      const after = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(after).toMatchObject({ status: to, currentStep: 2, stopReason: 'why' });
      expect(after.finishedAt !== null, to).toBe((FINISHED_STATUSES as readonly string[]).includes(to));
    }
    const run = (await claimRun(db, (await runIn('queued', 'train')).id, workerId, false))!;
    await expect(reportRunStatus(db, run.id, run.leaseEpoch - 1, { status: 'failed', step: 1, totalSteps: 3 })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(await statusOf(run.id)).toBe('running');
  });

  it('release: the lease holder hands its run back to the queue (cancelled if asked); the lease then no longer holds', async () => {
    const a = (await claimRun(db, (await runIn('queued', 'train')).id, workerId, false))!;
    expect(await releaseRun(db, a.id, a.leaseEpoch, 2)).toBe('queued');
    expect(await db.run.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({
      status: 'queued',
      currentStep: 2,
      resumeCount: 1,
      leaseEpoch: a.leaseEpoch + 1,
    });
    await expect(releaseRun(db, a.id, a.leaseEpoch)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(reportRunStatus(db, a.id, a.leaseEpoch, { status: 'succeeded', step: 3, totalSteps: 3 })).rejects.toBeInstanceOf(
      LeaseLostError,
    );

    const b = (await claimRun(db, (await runIn('queued', 'train')).id, workerId, false))!;
    expect(await cancelRun(db, b)).toBe(true);
    expect(await releaseRun(db, b.id, b.leaseEpoch)).toBe('cancelled');
    expect(await statusOf(b.id)).toBe('cancelled');
    for (const s of ['queued', 'cancelled'] as const) expect(RUN_TRANSITIONS.release.to).toContain(s);

    // a forced shutdown's hand-back after the run's own end leaves it finished, not queued again
    const c = (await claimRun(db, (await runIn('queued', 'train')).id, workerId, false))!;
    await reportRunStatus(db, c.id, c.leaseEpoch, { status: 'succeeded', step: 3, totalSteps: 3 });
    expect(await releaseRun(db, c.id, c.leaseEpoch, 3)).toBe('succeeded');
    expect(await db.run.findUniqueOrThrow({ where: { id: c.id } })).toMatchObject({
      status: 'succeeded',
      leaseEpoch: c.leaseEpoch,
      resumeCount: 0,
    });
  });

  it('delete: a running worker run needs a cancel request first; every other run may go', () => {
    for (const { status, kind } of STATES) {
      const refused = deletionRefusal({ status, kind, cancelRequestedAt: null }) !== null;
      expect(refused, `${kind} ${status}`).toBe(status === 'running' && kind !== 'external');
      expect(deletionRefusal({ status, kind, cancelRequestedAt: new Date() })).toBeNull();
    }
  });
});
