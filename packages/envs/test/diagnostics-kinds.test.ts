import { describe, expect, it } from 'vitest';
import { diagnoseTurn, type EnvSnapshot, type FrozenLakeSnapshot, type SokobanSnapshot } from '../src/index.js';

/*
 * room:              two boxes (8x8):        lake:      holes (1,1) (1,3) (2,3) (3,0), goal (3,3)
 *   ######             ########                P___
 *   #____#             #______#                _O_O
 *   #__#O#  target     #_O_X__#  box (2,4)     ___O
 *   #_X__#  box (3,2)  #___#__#                O__G
 *   #_P__#  me (4,2)   #_P__X_#  box (4,5), me (4,2)
 *   ######             #____O_#  targets (2,2) (5,5)
 */
const room: SokobanSnapshot = {
  env: 'sokoban',
  fixed: ['######', '#____#', '#__#O#', '#____#', '#____#', '######'],
  boxes: [[3, 2]],
  player: [4, 2],
  steps: 0,
  done: false,
  success: false,
};
const twoBoxes: SokobanSnapshot = {
  env: 'sokoban',
  fixed: ['########', '#______#', '#_O____#', '#___#__#', '#______#', '#____O_#', '#______#', '########'],
  boxes: [
    [2, 4],
    [4, 5],
  ],
  player: [4, 2],
  steps: 0,
  done: false,
  success: false,
};
const lake: FrozenLakeSnapshot = { env: 'frozenlake', map: ['SFFF', 'FHFH', 'FFFH', 'HFFG'], player: [0, 0], done: false, success: false };

// every rule allowed to contradict: these test the reader (rule-gate.test.ts covers the gate)
const check = (before: EnvSnapshot, think: string, answer: string[] = []) =>
  diagnoseTurn(
    { env: before.env, think, formatOk: true, answerActions: answer, executed: [], effectiveCount: 0, before, after: null },
    { ruleGate: false },
  );
/** Whether the text is flagged: at least one unambiguous contradiction. */
const flagged = (before: EnvSnapshot, think: string) => check(before, think).contradicted > 0;
const verdicts = (before: EnvSnapshot, think: string) => check(before, think).claims.map((c) => c.verdict);

describe('a think text that declares its own convention', () => {
  it('reads one-based coordinates', () => {
    expect(verdicts(room, 'Using 1-indexed (row, col): I am at (5, 3) and the box is at (4, 3).')).toEqual(['supported', 'supported']);
    expect(flagged(room, 'Coordinates are 1-based here. The box sits at (3, 2).')).toBe(true);
    expect(flagged(lake, 'Counting from one, there is a hole at (2, 3).')).toBe(true);
    expect(flagged(lake, 'Counting from 1, the goal is at (4, 4).')).toBe(false);
  });
  it('reads (x, y) with x the column', () => {
    expect(verdicts(room, 'I use (x, y) with x the column: player (2, 4), box (2, 3), target (4, 2).')).toEqual([
      'supported',
      'supported',
      'supported',
    ]);
    expect(flagged(room, '(x, y) coordinates, x = column: the box is at (3, 2).')).toBe(true);
  });
  it('says "not checkable" when the text talks of axes without a readable declaration and the verdict depends on it', () => {
    const d = check(room, 'x = 2 in my notes; the box is at (2, 3).');
    expect(d.contradicted).toBe(0);
    expect(d.claims.some((c) => c.verdict === 'uncheckable' && /convention/.test(c.reason ?? ''))).toBe(true);
  });
});

describe('symbol assignments and key–value templates', () => {
  it('binds each coordinate to its own object', () => {
    expect(verdicts(room, 'P=(4,2) | X=(3,2) | O=(2,4)')).toEqual(['supported', 'supported', 'supported']);
    expect(verdicts(room, 'P=(4,2); X=(2,2); O=(2,4)')).toEqual(['supported', 'contradicted', 'supported']);
    expect(flagged(twoBoxes, 'box@r2c4; box@r4c5; goal r5c5; me r4c2')).toBe(false);
    expect(flagged(twoBoxes, 'boxes: (2,4) and (4,6); targets: (2,2), (5,5)')).toBe(true);
    expect(flagged(lake, 'P at (0,0), G at (3,3), H at (1,1), (1,3), (2,3), (3,0).')).toBe(false);
    expect(flagged(lake, 'P (0,0) | G (3,3) | H (2,2)')).toBe(true);
  });
});

describe('subjects other than the player', () => {
  it('relates two objects, resolves "it" to the last named one, never an object to itself', () => {
    expect(flagged(room, 'The box has the target up and to the right of it.')).toBe(false);
    expect(flagged(room, 'The target is directly above the box.')).toBe(true);
    expect(flagged(lake, 'The goal is directly below the hole at (2, 3).')).toBe(false);
    expect(flagged(lake, 'The hole at (1, 1) is right of the goal.')).toBe(true);
    expect(flagged(room, 'The box is at (3, 2). It is directly above me.')).toBe(false);
    expect(flagged(room, 'The target is at (2, 4). It is left of the box.')).toBe(true);
    const self = check(room, 'The box is at (3, 2). The box is left of it.');
    expect(self.contradicted).toBe(0);
    expect(self.claims.at(-1)).toMatchObject({ verdict: 'uncheckable', reason: 'a box related to itself' });
  });
});

describe('diagonals, counts and distances', () => {
  it('checks both directions of a diagonal', () => {
    expect(flagged(lake, 'The goal lies below and to the right of me.')).toBe(false);
    expect(flagged({ ...lake, player: [3, 2] }, 'The goal is up and to the left.')).toBe(true);
    expect(flagged(twoBoxes, 'Box 1 is up and to the right of me.')).toBe(false);
  });
  it('counts things in a row, a column, next to the player or on the whole board', () => {
    expect(flagged(lake, 'There are exactly two holes in column 3.')).toBe(false);
    expect(flagged(lake, 'Only one hole in row 1.')).toBe(true);
    expect(flagged(lake, 'The lake has four holes.')).toBe(false);
    expect(flagged(twoBoxes, 'There are three boxes on this board.')).toBe(true);
    expect(flagged({ ...lake, player: [0, 1] }, 'There is 1 hole next to me.')).toBe(false);
  });
  it('checks distances in steps', () => {
    expect(flagged({ ...lake, player: [2, 1] }, 'The goal is three steps away.')).toBe(false);
    expect(flagged(lake, 'I am 5 moves from the goal.')).toBe(true);
    expect(flagged(room, 'The box is one cell up.')).toBe(false);
    expect(flagged(room, 'The box is two cells up.')).toBe(true);
  });
});

describe('negated membership and absence', () => {
  it('reads shared rows, absence from a border and open moves', () => {
    expect(flagged(lake, 'The goal and I do not share a row.')).toBe(false);
    expect(flagged(lake, 'The goal and I share a column.')).toBe(true);
    expect(flagged(lake, 'No hole touches the top border.')).toBe(false);
    expect(flagged(lake, 'No hole is in the bottom row.')).toBe(true);
    expect(flagged(lake, 'A move to the east is open.')).toBe(false);
    expect(flagged(room, 'Moving left is not possible.')).toBe(true);
  });
});

describe('move predictions are simulated', () => {
  it('checks a stated path and its safety', () => {
    expect(flagged(lake, 'Right, Right, Down, Down, Down, Right gets me to the goal without stepping on a hole.')).toBe(false);
    expect(flagged(lake, 'Down, Down, Right, Right, Right reaches the goal safely.')).toBe(true);
    expect(flagged(lake, 'Down-down-right-right-right never lands on a hole.')).toBe(true);
  });
  it('reads a move that does nothing as blocked, and a cell said to be floor as no claim about the subject', () => {
    expect(flagged(room, 'Moving down does nothing.')).toBe(false);
    expect(flagged(room, 'Moving left does nothing.')).toBe(true);
    expect(flagged(room, 'The box is at (3, 2); (2, 2) is plain floor.')).toBe(false);
  });
  it('checks where a push leaves the box', () => {
    expect(flagged(room, 'Pushing up puts the box at (2, 2).')).toBe(false);
    expect(flagged(room, 'Pushing right moves the box onto the target.')).toBe(true);
    expect(flagged(room, 'Moving right takes me to (4, 3).')).toBe(false);
    expect(flagged(room, 'Moving right takes me to (4, 4).')).toBe(true);
  });
});

describe('conditionals, counterfactuals, plans and the past', () => {
  it('are not claims about the current board', () => {
    const d = check(room, 'Were the box at (2, 2), I could push it right twice to reach the target.');
    expect(d.contradicted).toBe(0);
    expect(flagged(lake, 'My previous move was Left, and I was at (0, 1).')).toBe(false);
    expect(flagged(room, 'Once the box is on the target at (1, 1), I will be done.')).toBe(false);
    const plan = check(room, 'I want the box at (1, 2) eventually.');
    expect(plan.claims.every((c) => c.verdict === 'uncheckable' && c.reason)).toBe(true);
  });
  it('unless a sequence from the current state is stated', () => {
    expect(flagged(room, 'If I go up I push the box to (2, 2).')).toBe(false);
    expect(flagged(room, 'If I go left, I will push the box.')).toBe(true);
  });
  it('still checks what the text says of the present beside them', () => {
    expect(flagged(room, 'My last move was Up; now the box is at (2, 2).')).toBe(true);
  });
});

describe('decisions with alternatives', () => {
  const decision = (before: EnvSnapshot, think: string, answer: string[]) => {
    const d = check(before, think, answer);
    return [d.decided, d.thinkAnswer];
  };
  it('decides the move it picks, not the ones it turns down', () => {
    expect(decision(room, 'Not Left; I go Up.', ['Up'])).toEqual([['up'], 'consistent']);
    expect(decision(room, 'Down would also work, but I pick Up.', ['Down'])).toEqual([['up'], 'mismatch']);
    expect(decision(lake, "Going Down is risky; I'll go Right instead.", ['Down'])).toEqual([['right'], 'mismatch']);
    expect(decision(room, 'Instead of Left, push Up. Answer: Up', ['Left'])).toEqual([['up'], 'mismatch']);
    expect(decision(room, "I'll go up first. Actually, I choose left.", ['Left'])).toEqual([['left'], 'consistent']);
    expect(decision(lake, "I won't move up.", ['Up'])).toEqual([[], 'mismatch']);
  });
});

describe('every claim says how sure it is', () => {
  it('carries confidence when checked and a reason when not', () => {
    const d = check(lake, 'The goal is at (3, 3). If the hole were at (0, 1) I would go down. A hole is to my right.');
    for (const c of d.claims) {
      if (c.verdict === 'uncheckable') expect(c.reason).toBeTruthy();
      else expect(c.confidence).toBe('unambiguous');
    }
    // "a hole to my right": the next cell has none, a farther one has; which one is meant decides
    expect(d.claims.at(-1)).toMatchObject({ verdict: 'uncheckable' });
    expect(d.contradicted).toBe(0);
  });
});
