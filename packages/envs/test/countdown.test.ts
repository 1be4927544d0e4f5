import { describe, expect, it } from 'vitest';
import {
  CountdownServer,
  createEnv,
  diagnoseTurn,
  drawCountdown,
  countdownConfigSchema,
  getEnvDefinition,
  parseReply,
  readEquation,
  renderSnapshot,
  solveCountdown,
  validSnapshot,
  envDescriptionSchema,
} from '../src/index.js';

describe('Countdown equations', () => {
  it('reads + − × ÷ with precedence and parentheses, and the numbers used', () => {
    expect(readEquation('(3 + 5) * 2')).toEqual({ value: 16, numbers: [3, 5, 2] });
    expect(readEquation('3 + 5 * 2 = 13')).toEqual({ value: 13, numbers: [3, 5, 2] });
    expect(readEquation('8 ÷ 2 − 1')).toEqual({ value: 3, numbers: [8, 2, 1] });
    for (const bad of ['', '3 +', '(3 + 5', 'eval(1)', '3 ** 2', '2 / 0']) expect(readEquation(bad), bad).toBeNull();
  });

  it('the solver finds an equation for every drawn instance, and it checks out', () => {
    const config = countdownConfigSchema.parse({ count: 4, maxNumber: 12 });
    for (let seed = 0; seed < 30; seed++) {
      const { numbers, target } = drawCountdown(seed, config);
      const eq = readEquation(solveCountdown(numbers, target)!)!;
      expect(eq.value).toBeCloseTo(target, 9);
      expect([...eq.numbers].sort()).toEqual([...numbers].sort());
    }
    expect(solveCountdown([2, 2], 7)).toBeNull();
  });
});

describe('Countdown through the protocol', () => {
  it('describes itself in protocol v1 with a JSON Schema of its config', () => {
    const d = envDescriptionSchema.parse(new CountdownServer().describe());
    expect(d).toMatchObject({ protocol: 1, name: 'countdown', limits: { maxTurns: 1, maxActionsPerTurn: 1, maxActionsPerTraj: 1 } });
    expect(d.configSchema).toMatchObject({ type: 'object', properties: { count: { type: 'integer' } } });
  });

  it('pays 1 for a correct equation, the format reward for a wrong one, 0 for text that is none', () => {
    const instance = { numbers: [2, 3], target: 6 };
    const play = (answer: string) => {
      const env = createEnv('countdown', { instance });
      expect(env.reset(7)).toBe('Numbers: [2, 3]\nTarget: 6');
      expect(env.actions).toEqual([]);
      expect(env.actionFormat).toMatch(/equation/);
      return { ...env.step(answer), snapshot: env.snapshot() };
    };
    expect(play('2 * 3')).toMatchObject({ reward: 1, done: true, success: true, actionValid: true });
    expect(play('2 + 3')).toMatchObject({ reward: 0.1, done: true, success: false });
    // each number exactly once
    expect(play('2 * 3 * 1')).toMatchObject({ reward: 0.1, success: false });
    expect(play('six')).toMatchObject({ reward: 0, success: false, actionValid: false });
    const { snapshot } = play('3 * 2');
    expect(snapshot).toMatchObject({
      env: 'text',
      name: 'countdown',
      done: true,
      success: true,
      state: { answer: '3 * 2', correct: true },
    });
    expect(renderSnapshot(snapshot)).toBe('Numbers: [2, 3]\nTarget: 6\nAnswer: 3 * 2 (correct)');
    expect(validSnapshot('countdown', snapshot)).toEqual(snapshot);
    // a stored turn of an environment registered elsewhere is still drawn as text
    expect(validSnapshot('someone-elses-env', { ...snapshot, name: 'someone-elses-env' })).not.toBeNull();
  });

  it('a reply takes any text as its action, and the reasoning checks find nothing checkable', () => {
    const env = createEnv('countdown', { instance: { numbers: [4, 5], target: 20 } });
    env.reset(0);
    const parsed = parseReply('<think>The player is at (1, 1). 4 * 5 is 20.</think><answer>4 * 5</answer>', {
      actions: env.actions,
      anyAction: true,
      maxActionsPerTurn: 1,
    });
    expect(parsed).toMatchObject({ validActions: ['4 * 5'], penalized: false });
    const d = diagnoseTurn({
      env: 'countdown',
      before: env.snapshot(),
      think: parsed.think,
      formatOk: true,
      answerActions: parsed.validActions,
    } as never);
    // no checker knows this state: its claims are listed as not checkable, and nothing is contradicted
    expect(d).toMatchObject({ checkable: 0, contradicted: 0 });
    expect(d.claims.map((c) => [c.text, c.verdict, c.reason])).toEqual([
      ['The player is at (1, 1)', 'uncheckable', 'not checkable: countdown has no checker'],
    ]);
    expect(getEnvDefinition('countdown').rolloutDefaults.maxTurns).toBe(1);
  });
});
