import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUL_REPLACEMENT, insertTrajectories, type Db, type TurnInput } from '../src/index.js';
import { databaseWithRun, type TestRun } from '../src/testing.js';

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

describe('insertTrajectories', () => {
  let fixture: TestRun;
  let db: Db;
  let runId: string;
  beforeAll(async () => {
    fixture = await databaseWithRun('sokoban');
    ({ db, runId } = fixture);
  });
  afterAll(() => fixture.close());

  const traj = (turns: TurnInput[]) => ({
    step: 1,
    split: 'train' as const,
    group: 0,
    indexInGroup: 0,
    seed: 7,
    env: 'sokoban',
    success: false,
    totalReward: -0.1,
    numActions: 0,
    keptByFilter: true,
    turns,
  });

  it('stores malformed model output with NUL bytes (as ␀) and keeps every other character', async () => {
    const raw = 'a\u0000b <think>é 漢 😀</think><answer>Up\u0000</answer';
    await insertTrajectories(db, runId, [
      traj([
        turn({ rawReply: raw, think: 'x\u0000', answer: '', diagnostics: { 'k\u0000': ['v\u0000', 1, null] }, snapshot: { s: '\u0000' } }),
      ]),
    ]);
    const [stored] = await db.turn.findMany({ where: { trajectory: { runId } } });
    expect(stored!.rawReply).toBe(raw.replaceAll('\u0000', NUL_REPLACEMENT));
    expect(stored!.think).toBe(`x${NUL_REPLACEMENT}`);
    expect(stored!.diagnostics).toEqual({ [`k${NUL_REPLACEMENT}`]: [`v${NUL_REPLACEMENT}`, 1, null] });
    expect(stored!.stateSnapshot).toEqual({ s: NUL_REPLACEMENT });
  });

  it('re-inserting the same step replaces the trajectory instead of duplicating it', async () => {
    await insertTrajectories(db, runId, [traj([turn({ rawReply: 'second' }), turn({ index: 1, rawReply: 'third' })])]);
    const all = await db.trajectory.findMany({ where: { runId }, include: { turns: { orderBy: { index: 'asc' } } } });
    expect(all).toHaveLength(1);
    expect(all[0]!.turns.map((u) => u.rawReply)).toEqual(['second', 'third']);
  });
});
