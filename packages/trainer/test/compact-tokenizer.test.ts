import { describe, expect, it } from 'vitest';
import { createEnv } from '@starpo/envs';
import { CompactTokenizer, buildCompactVocab } from '../src/tokenizer/compact-tokenizer.js';
import { vocabularyCorpus } from '../src/pretrain/corpus.js';
import { tokenizerFromFiles } from '../src/tokenizer/load.js';

const tok = new CompactTokenizer(buildCompactVocab(vocabularyCorpus(40)));

describe('starpo-tiny compact tokenizer', () => {
  it('encodes a 6×6 Sokoban observation in at most 50 tokens, one per board symbol', () => {
    const env = createEnv('sokoban');
    for (let seed = 0; seed < 20; seed++) {
      const obs = env.reset(seed);
      const ids = tok.encode(obs);
      expect(ids.length).toBeLessThanOrEqual(50);
      expect(ids.length).toBe(obs.length);
    }
  });

  it('keeps special tokens whole and round-trips any UTF-8 text', () => {
    expect(tok.encode('<think>')).toEqual([tok.tokenId('<think>')]);
    expect(tok.encode('<|im_end|>')).toEqual([tok.eosId]);
    for (const s of [
      '<think>Player at (2, 3). Plan: Up, Left.</think><answer>Up || Left</answer>',
      '日本語 🧊 √✓ déjà vu',
      '\t\n  spaces   ',
      'Supercalifragilistic 12345',
    ]) {
      expect(tok.decode(tok.encode(s))).toBe(s);
    }
  });

  it('renders ChatML and survives a save/load through its files', () => {
    const text = tok.applyChatTemplate([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true });
    expect(text).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
    const f = tok.files();
    const again = tokenizerFromFiles(JSON.parse(JSON.stringify(f.tokenizer)), f.tokenizerConfig);
    expect(again.encode(text)).toEqual(tok.encode(text));
    expect(again.vocabSize).toBe(tok.vocabSize);
  });

  it('builds the same vocabulary every time', () => {
    expect(buildCompactVocab(vocabularyCorpus(40))).toEqual(tok.tokens);
  });
});
