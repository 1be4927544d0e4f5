import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COUNT_STEPS_SQL,
  NUL_REPLACEMENT,
  diagnosticsSummary,
  insertDiagnosedTrajectories,
  insertTrajectories,
  poolOf,
  pruneRun,
  rediagnoseStep,
  type BatchDiagnosis,
  type Db,
  type StoredRow,
  type TrajectoryInput,
  type TurnInput,
} from '../src/index.js';
import { databaseWithRun, type TestRun } from '../src/testing.js';
import { SokobanEnv, diagnoseStoredRows, diagnoseStoredTurnRows, storedBatchParts } from '@starpo/envs';

function turn(over: Partial<TurnInput>): TurnInput {
  return {
    index: 0,
    observation: '#P_#',
    snapshot: { env: 'sokoban' },
    rawReply: '',
    think: '',
    answer: '',
    parsedActions: [],
    validActions: [],
    formatOk: false,
    effectiveCount: 0,
    reward: -0.1,
    done: false,
    promptTokens: 10,
    responseTokens: 5,
    meanLogProb: null,
    meanEntropy: null,
    ...over,
  };
}

function traj(turns: TurnInput[], over: Partial<TrajectoryInput> = {}): TrajectoryInput {
  return {
    step: 1,
    split: 'train',
    group: 0,
    indexInGroup: 0,
    seed: 7,
    env: 'sokoban',
    success: false,
    totalReward: -0.1,
    numActions: 0,
    keptByFilter: true,
    turns,
    ...over,
  };
}

/** What a checker found, as rediagnoseStep's diagnoser returns it (no step metrics). */
const checked = (results: BatchDiagnosis['results']): BatchDiagnosis => ({ results, metrics: {} });

/** A migrated database holding one Sokoban run, for the tests of one describe block. */
function withRun(): { db: Db; runId: string } {
  let fixture: TestRun;
  const ctx = {} as { db: Db; runId: string };
  beforeAll(async () => {
    fixture = await databaseWithRun('sokoban');
    Object.assign(ctx, { db: fixture.db, runId: fixture.runId });
  });
  afterAll(() => fixture.close());
  return ctx;
}

describe('insertTrajectories', () => {
  const ctx = withRun();

  it('stores malformed model output with NUL bytes (as ␀) and keeps every other character', async () => {
    const raw = 'a\u0000b <think>é 漢 😀</think><answer>Up\u0000</answer';
    await insertTrajectories(ctx.db, ctx.runId, [
      traj([
        turn({
          rawReply: raw,
          think: 'x\u0000',
          answer: '',
          // the six characters \u0000 written out in text stay as they are; only real NULs are replaced
          diagnostics: { 'k\u0000': ['v\u0000', 1, null, '\\u0000', '\\\u0000'] },
          snapshot: { s: '\u0000' },
        }),
      ]),
    ]);
    const [stored] = await ctx.db.turn.findMany({ where: { trajectory: { runId: ctx.runId } } });
    expect(stored!.rawReply).toBe(raw.replaceAll('\u0000', NUL_REPLACEMENT));
    expect(stored!.think).toBe(`x${NUL_REPLACEMENT}`);
    expect(stored!.diagnostics).toEqual({ [`k${NUL_REPLACEMENT}`]: [`v${NUL_REPLACEMENT}`, 1, null, '\\u0000', `\\${NUL_REPLACEMENT}`] });
    expect(stored!.stateSnapshot).toEqual({ s: NUL_REPLACEMENT });
  });

  it('re-inserting the same step replaces the trajectory instead of duplicating it', async () => {
    await insertTrajectories(ctx.db, ctx.runId, [traj([turn({ rawReply: 'second' }), turn({ index: 1, rawReply: 'third' })])]);
    const all = await ctx.db.trajectory.findMany({ where: { runId: ctx.runId }, include: { turns: { orderBy: { index: 'asc' } } } });
    expect(all).toHaveLength(1);
    expect(all[0]!.turns.map((u) => u.rawReply)).toEqual(['second', 'third']);
  });
});

describe('insertDiagnosedTrajectories: rows that join a stored batch', () => {
  const ctx = withRun();
  /** Each call's rows as the checker got them; every turn's diagnostics name the think text they were found for. */
  const calls: StoredRow[][] = [];
  const checker = (rows: StoredRow[]): BatchDiagnosis => {
    calls.push(rows);
    return checked(rows.map((r) => ({ turns: r.turns.map((u) => ({ of: u.think })), flags: [] })));
  };
  const one = (k: number) => traj([turn({ think: `think ${k}` })], { indexInGroup: k });

  it('hands the checker the stored rows with their diagnostics to keep; a re-check gets none', async () => {
    await insertDiagnosedTrajectories(ctx.db, ctx.runId, [one(0)], checker);
    await insertDiagnosedTrajectories(ctx.db, ctx.runId, [one(1)], checker);
    await insertDiagnosedTrajectories(ctx.db, ctx.runId, [one(2)], checker);
    const known = (rows: StoredRow[]) => rows.map((r) => [r.turns[0]!.think, r.turns[0]!.known ?? null]);
    expect(calls.map(known)).toEqual([
      [['think 0', null]],
      [
        ['think 0', { of: 'think 0' }],
        ['think 1', null],
      ],
      [
        ['think 0', { of: 'think 0' }],
        ['think 1', { of: 'think 1' }],
        ['think 2', null],
      ],
    ]);
    await rediagnoseStep(ctx.db, ctx.runId, 1, 'train', checker);
    expect(known(calls.at(-1)!)).toEqual([
      ['think 0', null],
      ['think 1', null],
      ['think 2', null],
    ]);
  });
});

describe('insertTrajectories: text Postgres cannot hold', () => {
  const ctx = withRun();

  it('stores lone surrogates as U+FFFD in text and JSON alike, and non-finite numbers as they are', async () => {
    await insertTrajectories(ctx.db, ctx.runId, [
      traj(
        [
          turn({
            think: 'a\ud800b',
            parsedActions: ['Up\udfff'],
            diagnostics: { k: 'x\udc00', pair: '😀', text: '\\ud800' },
            reward: Number.NaN,
            meanLogProb: Number.NEGATIVE_INFINITY,
            meanEntropy: Number.POSITIVE_INFINITY,
            advantage: 0.25,
          }),
        ],
        {},
      ),
    ]);
    const [stored] = await ctx.db.turn.findMany({ where: { trajectory: { runId: ctx.runId } } });
    expect(stored!.think).toBe('a\ufffdb');
    expect(stored!.parsedActions).toEqual(['Up\ufffd']);
    // the six characters \ud800 written out in text stay as they are
    expect(stored!.diagnostics).toEqual({ k: 'x\ufffd', pair: '😀', text: '\\ud800' });
    expect(stored!.reward).toBeNaN();
    expect([stored!.meanLogProb, stored!.meanEntropy, stored!.advantage]).toEqual([-Infinity, Infinity, 0.25]);
  });
});

describe('insertTrajectories: characters that COPY escapes', () => {
  const ctx = withRun();

  it('stores tabs, line breaks, backslashes, quotes, braces and \\N exactly, in text, arrays and JSON', async () => {
    const nasty = 'a\tb\nc\r\nd \\ e \\N f "g" {h,i} \'j\' 😀 \\t';
    await insertTrajectories(ctx.db, ctx.runId, [
      traj(
        [
          turn({
            observation: nasty,
            rawReply: `<think>${nasty}</think>`,
            think: nasty,
            answer: '\\N',
            parsedActions: [nasty, '', 'NULL', '\\N', ','],
            validActions: ['{}', '"'],
            diagnostics: {
              claims: [
                { pattern: 'p\tq', verdict: 'contradicted', text: nasty, evidence: '\\N' },
                // two patterns that store alike (NUL as ␀) are one row of the claim index
                { pattern: 'n\u0000', verdict: 'contradicted', text: 'y' },
                { pattern: `n${NUL_REPLACEMENT}`, verdict: 'contradicted', text: 'x' },
              ],
              k: [nasty, 1.5, null],
            },
            snapshot: { s: nasty },
          }),
          turn({ index: 1, observation: '', think: '', answer: '', parsedActions: [], diagnostics: null }),
        ],
        { flags: [nasty, 'x y'], finalSnapshot: { t: '\\' } },
      ),
    ]);
    const [t] = await ctx.db.trajectory.findMany({ where: { runId: ctx.runId }, include: { turns: { orderBy: { index: 'asc' } } } });
    expect(t!.flags).toEqual([nasty, 'x y']);
    expect(t!.finalSnapshot).toEqual({ t: '\\' });
    const [a, b] = t!.turns;
    expect([a!.observation, a!.rawReply, a!.think, a!.answer]).toEqual([nasty, `<think>${nasty}</think>`, nasty, '\\N']);
    expect(a!.parsedActions).toEqual([nasty, '', 'NULL', '\\N', ',']);
    expect(a!.validActions).toEqual(['{}', '"']);
    expect(a!.diagnostics).toEqual({
      claims: [
        { pattern: 'p\tq', verdict: 'contradicted', text: nasty, evidence: '\\N' },
        { pattern: `n${NUL_REPLACEMENT}`, verdict: 'contradicted', text: 'y' },
        { pattern: `n${NUL_REPLACEMENT}`, verdict: 'contradicted', text: 'x' },
      ],
      k: [nasty, 1.5, null],
    });
    expect(a!.stateSnapshot).toEqual({ s: nasty });
    expect([b!.observation, b!.think, b!.parsedActions, b!.diagnostics]).toEqual(['', '', [], null]);
    const indexed = await ctx.db.contradictedClaim.findMany({ where: { runId: ctx.runId }, orderBy: { pattern: 'asc' } });
    expect(indexed.map((r) => [r.pattern, r.text, r.evidence, r.claims])).toEqual([
      [`n${NUL_REPLACEMENT}`, 'x', null, 2],
      ['p\tq', nasty, '\\N', 1],
    ]);
  });
});

describe('insertTrajectories: a row that cannot be written after the first rows went to Postgres', () => {
  const ctx = withRun();

  it('writes nothing of the call, and the next write goes through', async () => {
    // 150 trajectories: more than one COPY chunk of each table, and the bad turn's chunk is not the first
    const items = Array.from({ length: 150 }, (_, i) =>
      traj([turn({ think: `t${i}`, snapshot: i === 130 ? { env: 'sokoban', n: 1n } : { env: 'sokoban' } })], { indexInGroup: i }),
    );
    await expect(insertTrajectories(ctx.db, ctx.runId, items)).rejects.toThrow(/BigInt/);
    expect(await ctx.db.trajectory.count({ where: { runId: ctx.runId } })).toBe(0);
    expect(await ctx.db.turn.count({ where: { trajectory: { runId: ctx.runId } } })).toBe(0);

    items[130]!.turns[0]!.snapshot = { env: 'sokoban' };
    // the pool hands out the connection returned last first: the failed COPY's must not be among them
    await insertTrajectories(ctx.db, ctx.runId, items);
    expect(await ctx.db.turn.count({ where: { trajectory: { runId: ctx.runId } } })).toBe(150);
    const [bad] = await ctx.db.turn.findMany({ where: { trajectory: { runId: ctx.runId, indexInGroup: 130 } } });
    expect(bad!.think).toBe('t130');
  });
});

describe('contradicted_claims follows the turns it indexes', () => {
  const ctx = withRun();
  const claim = (pattern: string, verdict: string, text = `${pattern} claim`) => ({
    pattern,
    verdict,
    text,
    evidence: `${pattern} evidence`,
  });
  /** A flagged trajectory at `step` whose turns hold these claims. */
  const claimed = (step: number, claims: unknown[][]) =>
    traj(
      claims.map((c, index) => turn({ index, diagnostics: { claims: c } })),
      { step, hallucinated: true },
    );
  /** The summary's patterns as [pattern, count, example step] rows. */
  const summary = async () =>
    (await diagnosticsSummary(ctx.db, ctx.runId, { from: 0, to: 100, split: null, limit: 10, examples: 5 })).contradicted.flatMap((c) =>
      c.examples.map((e) => ({ pattern: c.pattern, n: c.count, step: e.step })),
    );
  const indexed = () =>
    ctx.db.contradictedClaim.findMany({ where: { runId: ctx.runId }, orderBy: [{ step: 'asc' }, { turn: 'asc' }, { pattern: 'asc' }] });

  it('indexes only contradicted claims, one row per turn and pattern, on insert', async () => {
    await insertTrajectories(ctx.db, ctx.runId, [
      claimed(1, [
        [claim('box', 'contradicted', 'b'), claim('box', 'contradicted', 'a'), claim('wall', 'supported')],
        [claim('goal', 'contradicted')],
      ]),
      claimed(2, [[claim('box', 'contradicted')], [claim('goal', 'unverifiable')]]),
    ]);
    expect((await indexed()).map((r) => [r.step, r.turn, r.pattern, r.claims, r.text])).toEqual([
      [1, 0, 'box', 2, 'a'],
      [1, 1, 'goal', 1, 'goal claim'],
      [2, 0, 'box', 1, 'box claim'],
    ]);
    const rows = await summary();
    expect(rows.map((r) => [r.pattern, r.n, r.step])).toEqual([
      ['box', 3, 2],
      ['box', 3, 1],
      ['goal', 1, 1],
    ]);
  });

  it('replaces the rows of a re-inserted trajectory and of re-checked diagnostics, and drops them with the trajectory', async () => {
    await insertTrajectories(ctx.db, ctx.runId, [claimed(2, [[claim('wall', 'contradicted')]])]);
    expect((await indexed()).filter((r) => r.step === 2).map((r) => r.pattern)).toEqual(['wall']);

    // a re-check of step 1 that finds its first turn's box claim true now (npm run diagnose's path)
    await rediagnoseStep(ctx.db, ctx.runId, 1, 'train', () =>
      checked([{ turns: [{ claims: [claim('box', 'supported')] }, { claims: [claim('goal', 'contradicted')] }], flags: [] }]),
    );
    expect((await indexed()).map((r) => [r.step, r.turn, r.pattern])).toEqual([
      [1, 1, 'goal'],
      [2, 0, 'wall'],
    ]);

    const step1 = await ctx.db.trajectory.findFirstOrThrow({ where: { runId: ctx.runId, step: 1 } });
    await ctx.db.trajectory.delete({ where: { id: step1.id } });
    expect((await indexed()).map((r) => r.pattern)).toEqual(['wall']);
  });
});

describe('step_diagnostic_counts equals a recount after every writer', () => {
  const ctx = withRun();
  const claims = (pattern: string, n: number) => ({
    claims: Array.from({ length: n }, () => ({ pattern, verdict: 'contradicted', text: pattern })),
  });
  const flagged = (step: number, group: number, flags: string[], pattern?: string, split: 'train' | 'val' = 'train') =>
    traj([turn({ diagnostics: pattern ? claims(pattern, 2) : null })], {
      step,
      group,
      split,
      flags,
      hallucinated: flags.includes('hallucinated'),
    });
  const stored = async () =>
    (
      await poolOf(ctx.db).query<{ step: number; split: string; kind: string; name: string; n: number }>(
        'SELECT step, split::text, kind, name, n FROM step_diagnostic_counts WHERE run_id = $1 ORDER BY 1, 2, 3, 4',
        [ctx.runId],
      )
    ).rows;
  /** The same counts recounted from the trajectories and claim rows of every stored step. */
  const recount = async () =>
    (
      await poolOf(ctx.db).query(`SELECT step, split::text, kind, name, n FROM (${COUNT_STEPS_SQL}) c ORDER BY 1, 2, 3, 4`, [
        Array.from({ length: 10 }, () => ctx.runId),
        Array.from({ length: 10 }, (_, i) => i + 1),
      ])
    ).rows;
  const whole = () => diagnosticsSummary(ctx.db, ctx.runId, { from: 0, to: 2 ** 31 - 1, split: null, limit: 10, examples: 1 });

  it('after inserts, a replayed batch, re-diagnosis and pruning; the whole-run summary reads them', async () => {
    await insertTrajectories(ctx.db, ctx.runId, [
      flagged(1, 0, ['hallucinated'], 'box'),
      flagged(1, 1, ['think-answer-mismatch']),
      flagged(1, 0, ['hallucinated'], 'goal', 'val'),
      flagged(2, 0, ['hallucinated', 'think-answer-mismatch'], 'box'),
    ]);
    expect(await stored()).toEqual(await recount());
    expect(await whole()).toMatchObject({
      trajectories: 4,
      flags: { hallucinated: 3, 'think-answer-mismatch': 2 },
      contradicted: [
        { pattern: 'box', count: 4, examples: [{ step: 2 }] },
        { pattern: 'goal', count: 2, examples: [{ step: 1, split: 'val' }] },
      ],
    });

    // the same batch again stores nothing twice
    await insertTrajectories(ctx.db, ctx.runId, [flagged(2, 0, ['hallucinated', 'think-answer-mismatch'], 'box')]);
    expect(await stored()).toEqual(await recount());
    expect((await whole()).trajectories).toBe(4);

    // a re-check of step 2 that finds nothing wrong any more
    await rediagnoseStep(ctx.db, ctx.runId, 2, 'train', (rows) => checked(rows.map(() => ({ turns: [null], flags: [] }))));
    expect(await stored()).toEqual(await recount());
    expect(await whole()).toMatchObject({
      flags: { hallucinated: 2, 'think-answer-mismatch': 1 },
      contradicted: [
        { pattern: 'box', count: 2 },
        { pattern: 'goal', count: 2 },
      ],
    });

    await insertTrajectories(ctx.db, ctx.runId, [flagged(5, 0, [])]);
    await pruneRun(ctx.db, ctx.runId, { trajectories: { keepLastSteps: 1, keepValidation: true } });
    expect(await stored()).toEqual(await recount());
    expect(await whole()).toMatchObject({ trajectories: 2, flags: { hallucinated: 1 }, contradicted: [{ pattern: 'goal', count: 2 }] });
  });

  it('concurrent writers of one step both count', async () => {
    await Promise.all(
      Array.from({ length: 6 }, (_, g) => insertTrajectories(ctx.db, ctx.runId, [flagged(7, g, ['hallucinated'], 'wall')])),
    );
    expect(await stored()).toEqual(await recount());
    const step7 = await diagnosticsSummary(ctx.db, ctx.runId, { from: 7, to: 7, split: 'train', limit: 10, examples: 0 });
    expect(step7).toMatchObject({ trajectories: 6, flags: { hallucinated: 6 }, contradicted: [{ pattern: 'wall', count: 12 }] });
  });
});

describe('insertDiagnosedTrajectories: a batch posted a trajectory a request equals the batch posted whole', () => {
  const ctx = withRun();
  const incremental = { ...storedBatchParts, turns: diagnoseStoredTurnRows };

  /**
   * Real Sokoban episodes of one step batch: position claims (every third one false), a think text
   * that trajectories 0 and 5 write at different boards (template collapse), trajectories 8 and 16
   * replaying trajectory 0's room with its think text (same state: no template), a malformed turn and
   * a turn without a known state. `variant` changes the think texts of a re-posted trajectory.
   */
  function episode(i: number, variant = 0): TrajectoryInput {
    const env = new SokobanEnv({});
    env.reset(500 + (i % 8));
    const turns = [0, 1, 2].map((k) => {
      const s = env.snapshot();
      const [br, bc] = s.boxes[0]!;
      const action = env.actions[(i + k + variant) % 4]!;
      const think =
        k === 0 && (i === 0 || i === 5) && variant === 0
          ? 'I will push the box onto the target.'
          : k === 0 && i % 8 === 0
            ? 'Same plan as always.'
            : `Episode ${i}: I am at (${s.player[0]}, ${s.player[1]}). The box is at (${br + (i % 3 === 0 ? 1 : 0)}, ${bc}). Variant ${variant}.`;
      env.step(action);
      return turn({
        index: k,
        think,
        answer: action,
        parsedActions: [action],
        validActions: [action],
        formatOk: !(i % 7 === 3 && k === 1),
        effectiveCount: 1,
        snapshot: i % 11 === 4 && k === 2 ? { env: 'sokoban', note: 'no board' } : s,
      });
    });
    return traj(turns, {
      group: Math.floor(i / 8),
      indexInGroup: i % 8,
      seed: 500 + (i % 8),
      success: env.success,
      finalSnapshot: env.snapshot(),
    });
  }

  const newRun = async () => {
    const { teamId } = await ctx.db.run.findUniqueOrThrow({ where: { id: ctx.runId } });
    return (await ctx.db.run.create({ data: { teamId, name: 'r', config: {}, environment: 'sokoban', algorithm: 'grpo', totalSteps: 1 } }))
      .id;
  };
  /** Everything the checker leaves in a run: rows, turns, claim index, step counts and metrics. */
  const stored = async (runId: string) => {
    const q = poolOf(ctx.db);
    const rows = async (sql: string) => (await q.query(sql, [runId])).rows;
    return {
      trajectories: await rows(
        `SELECT group_index, index_in_group, hallucinated, flags, (SELECT json_agg(u.diagnostics::text ORDER BY u.index) FROM turns u WHERE u.trajectory_id = t.id) AS turns
         FROM trajectories t WHERE run_id = $1 ORDER BY 1, 2`,
      ),
      claims: await rows(
        `SELECT t.group_index, t.index_in_group, c.turn, c.pattern, c.claims FROM contradicted_claims c JOIN trajectories t ON t.id = c.trajectory_id
         WHERE c.run_id = $1 ORDER BY 1, 2, 3, 4`,
      ),
      counts: await rows('SELECT step, split::text, kind, name, n FROM step_diagnostic_counts WHERE run_id = $1 ORDER BY 1, 2, 3, 4'),
      metrics: await rows('SELECT key, step, value FROM metric_points WHERE run_id = $1 ORDER BY 1, 2'),
      tally: await rows('SELECT step, split::text, tally, distinct_thinks, distinct_states FROM batch_tallies WHERE run_id = $1'),
    };
  };
  const batch = Array.from({ length: 20 }, (_, i) => episode(i));
  // trajectory 5 re-posted with other think texts: trajectory 0's think text is then written at one board only
  const final = batch.map((t, i) => (i === 5 || i === 9 ? episode(i, 1) : t));

  it('stores the same diagnostics, flags, claims, counts and metrics (to the bit), and re-judges only what changes', async () => {
    const whole = await newRun();
    await insertDiagnosedTrajectories(ctx.db, whole, final, diagnoseStoredRows, incremental);
    const expected = await stored(whole);
    expect(expected.trajectories[0]!.flags).not.toContain('template_collapse');
    expect(expected.metrics.map((m) => m.key)).toContain('train/diag/hallucination_rate');

    const split = await newRun();
    const diagnosed: number[] = [];
    for (const t of batch)
      diagnosed.push((await insertDiagnosedTrajectories(ctx.db, split, [t], diagnoseStoredRows, incremental)).diagnosed);
    // trajectory 5 made trajectory 0 a template: those two were judged, every other request its own row only
    expect(diagnosed).toEqual(batch.map((_, i) => (i === 5 ? 2 : 1)));
    const flagsOf = async (i: number) => (await stored(split)).trajectories[i]!.flags;
    expect(await flagsOf(0)).toContain('template_collapse');
    for (const i of [5, 9]) await insertDiagnosedTrajectories(ctx.db, split, [final[i]!], diagnoseStoredRows, incremental);
    expect(await flagsOf(0)).not.toContain('template_collapse');
    expect(await stored(split)).toEqual(expected);
  });

  it('judges a batch stored without a tally whole once, then extends it, with the same result', async () => {
    const whole = await newRun();
    await insertDiagnosedTrajectories(ctx.db, whole, final, diagnoseStoredRows, incremental);
    const expected = await stored(whole);

    // rows stored before batches kept a tally (or by a worker): no tally, no turn keys, no diagnostics
    const old = await newRun();
    await insertTrajectories(ctx.db, old, final.slice(0, 10));
    expect((await stored(old)).tally).toEqual([]);
    const diagnosed: number[] = [];
    for (const t of final.slice(10))
      diagnosed.push((await insertDiagnosedTrajectories(ctx.db, old, [t], diagnoseStoredRows, incremental)).diagnosed);
    expect(diagnosed).toEqual([11, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(await stored(old)).toEqual(expected);

    // a tally dropped by another writer (here a delete), then a re-check that writes it again: the same again
    const gone = await ctx.db.trajectory.findFirstOrThrow({ where: { runId: old, groupIndex: 2, indexInGroup: 3 } });
    await ctx.db.trajectory.delete({ where: { id: gone.id } });
    expect((await stored(old)).tally).toEqual([]);
    expect((await insertDiagnosedTrajectories(ctx.db, old, [final[19]!], diagnoseStoredRows, incremental)).diagnosed).toBe(20);
    expect(await stored(old)).toEqual(expected);
    await rediagnoseStep(ctx.db, old, 1, 'train', diagnoseStoredRows);
    expect(await stored(old)).toEqual(expected);
  });
});
