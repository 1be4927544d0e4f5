import { describe, expect, it } from 'vitest';
import { parseReply } from '../src/index.js';

const opts = { actions: ['Up', 'Down', 'Left', 'Right'], maxActionsPerTurn: 5 };

describe('parseReply', () => {
  it('parses a well-formed reply and rewrites it canonically', () => {
    const p = parseReply('<think>box is left</think><answer>Left||up</answer>', opts);
    expect(p).toMatchObject({
      formatOk: true,
      think: 'box is left',
      parsedActions: ['Left', 'up'],
      validActions: ['Left', 'Up'],
      penalized: false,
    });
    expect(p.canonical).toBe('<think>box is left</think><answer>Left || up</answer>');
  });

  it('allows whitespace between the blocks and ignores text around them', () => {
    const p = parseReply('Sure! <think> go </think>\n\n <answer> Down </answer> bye', opts);
    expect(p).toMatchObject({ formatOk: true, think: 'go', validActions: ['Down'] });
    expect(p.canonical).toBe('<think>go</think><answer>Down</answer>');
  });

  it('missing or unclosed tags fail the format, keep the raw text and are penalised', () => {
    for (const text of ['Up', '<think>x</think>Up', '<think>x<answer>Up</answer>', '<think>x</think><answer>Up', '<answer>Up</answer>']) {
      const p = parseReply(text, opts);
      expect(p, text).toMatchObject({ formatOk: false, validActions: [], penalized: true, canonical: text });
    }
  });

  it('an empty answer is well-formed but penalised', () => {
    expect(parseReply('<think>hmm</think><answer>  </answer>', opts)).toMatchObject({ formatOk: true, parsedActions: [], penalized: true });
  });

  it('drops unknown actions, keeps the known ones and penalises the turn', () => {
    const p = parseReply('<think>t</think><answer>Up || Jump || RIGHT</answer>', opts);
    expect(p).toMatchObject({ validActions: ['Up', 'Right'], invalidActions: ['Jump'], penalized: true });
  });

  it('keeps only the first maxActionsPerTurn actions, and the canonical text shows the kept ones', () => {
    const p = parseReply('<think>t</think><answer>Up||Up||Up||Down||Down||Left||Right</answer>', opts);
    expect(p.parsedActions).toHaveLength(5);
    expect(p.canonical).toBe('<think>t</think><answer>Up || Up || Up || Down || Down</answer>');
    expect(p.penalized).toBe(false);
  });

  it('takes the first match when blocks repeat, and is non-greedy over nested tags', () => {
    const rep = parseReply('<think>a</think><answer>Up</answer><think>b</think><answer>Down</answer>', opts);
    expect(rep).toMatchObject({ think: 'a', validActions: ['Up'] });
    const nested = parseReply('<think>a<think>b</think></think><answer>Left</answer>', opts);
    // Lazy matching extends past the inner </think> until "</think><answer>" follows (RAGEN's regex).
    expect(nested).toMatchObject({ formatOk: true, think: 'a<think>b</think>', validActions: ['Left'] });
    const inner = parseReply('<think>outer <think>inner</think><answer>Left</answer>', opts);
    expect(inner).toMatchObject({ formatOk: true, think: 'outer <think>inner', validActions: ['Left'] });
  });

  it('strips chat special tokens and handles unicode', () => {
    const p = parseReply('<think>箱子在左边 📦 → ✓</think><answer>Left<|im_end|></answer>', opts);
    expect(p).toMatchObject({ think: '箱子在左边 📦 → ✓', validActions: ['Left'], penalized: false });
  });

  it('handles very long replies in linear time', () => {
    const long = '<think>' + 'x'.repeat(200_000) + '</think><answer>' + 'Up || '.repeat(10_000) + 'Up</answer>';
    const p = parseReply(long, opts);
    expect(p.think).toHaveLength(200_000);
    expect(p.parsedActions).toHaveLength(5);
    const unclosed = parseReply('<think>' + 'y'.repeat(200_000), opts);
    expect(unclosed.formatOk).toBe(false);
  });

  it('answer-only mode for runs without thinking', () => {
    expect(parseReply('<answer>Up</answer>', { ...opts, enableThink: false })).toMatchObject({
      formatOk: true,
      validActions: ['Up'],
      canonical: '<answer>Up</answer>',
    });
  });

  it('a custom separator splits actions', () => {
    expect(parseReply('<think>t</think><answer>Up, Down</answer>', { ...opts, actionSeparator: ',' }).validActions).toEqual(['Up', 'Down']);
  });
});
