import { describe, expect, it } from 'vitest';
// the reader behind scripts/nlp-judge.mjs (a devDependency, not in the shipped checker)
import { readClaims, splitSentences } from '../scripts/nlp-reader.mjs';
import { verifyClaim, World } from '../src/index.js';
import type { Claim } from '../src/index.js';
import type { FrozenLakeSnapshot, SokobanSnapshot } from '../src/types.js';
import handwritten from './fixtures/reasoning-handwritten.json';

const lake: FrozenLakeSnapshot = { env: 'frozenlake', map: ['SFFF', 'FHFH', 'FFFH', 'HFFG'], player: [0, 1], done: false, success: false };
// one box at (3, 2) right above the player at (4, 2): the first hand-written development text's board
const room = (handwritten as { id: string; state: SokobanSnapshot }[]).find((e) => e.id === 'hand-000')!.state;

const verdicts = (think: string, snap: FrozenLakeSnapshot | SokobanSnapshot, parser: 'compromise' | 'wink') =>
  (readClaims(think, snap.env, { parser }) as (Claim & { rule: string })[]).map((c) => [
    c.rule,
    verifyClaim(new World(snap), c, { coordinateBase: 0 }).verdict,
  ]);

describe.each(['compromise', 'wink'] as const)('NLP reader on %s', (parser) => {
  it('reads a relation with a distance and judges it against the board', () => {
    expect(verdicts('The box is one square above me.', room, parser)).toEqual([['nlp-distance', 'supported']]);
    expect(verdicts('The box is two squares left of me.', room, parser)).toEqual([['nlp-distance', 'contradicted']]);
  });

  it('reads "no hole next to me" as a negated adjacency', () => {
    // the hole at (1, 1) is right below the player at (0, 1)
    expect(verdicts('There are no holes next to me.', lake, parser)).toEqual([['nlp-adjacent', 'contradicted']]);
    expect(verdicts('There is a hole just below me.', lake, parser)).toEqual([['nlp-direction', 'supported']]);
  });

  it('reads positions, lists of cells and corners', () => {
    expect(verdicts('There are holes at (1, 1) and (1, 3).', lake, parser)).toEqual([
      ['nlp-position', 'supported'],
      ['nlp-position', 'supported'],
    ]);
    expect(verdicts('The goal is in the bottom right corner.', lake, parser)).toEqual([['nlp-position', 'supported']]);
    expect(verdicts("I'm standing at (2, 2).", lake, parser)).toEqual([['nlp-position', 'contradicted']]);
  });

  it('leaves conditions, plans, moves and statements about statements unread', () => {
    for (const think of [
      'If I move down I will fall into a hole.',
      'Moving left puts me right next to a hole.',
      'It is not true that the goal is above me.',
      'The cell below me (1,1) is a hole.',
      'Plan: Down, Right.',
    ])
      expect(readClaims(think, 'frozenlake', { parser })).toEqual([]);
  });
});

describe('sentences', () => {
  it('splits after . ! ? ; but not inside a coordinate', () => {
    expect(splitSentences('I am at (1, 1). The box is left; go up!').map((s) => s.text)).toEqual([
      'I am at (1, 1).',
      'The box is left;',
      'go up!',
    ]);
  });
});
