import { buildRunConfig, PRESET_NAMES, WARNING_METRICS, type RunConfig, type RunConfigOverrides } from '@starpo/contracts';
import { describe, expect, it } from 'vitest';
import { LearningWatch } from '../src/train/warnings.js';

/** A healthy quick-cpu step: well-formed replies, reward spread within groups, a moving policy, mixed actions. */
const healthy: Record<string, number> = {
  'train/well_formed_rate': 0.98,
  'train/num_actions': 6,
  'train/entropy': 0.15,
  'actor/entropy': 0.15,
  'actor/grad_norm': 0.4,
  'rollout/in_group_reward_std': 0.3,
  'rollout/in_group_reward_std_max': 1.2,
  'rollout/empty_after_filter': 0,
  'train/action_share/Up': 0.25,
  'train/action_share/Down': 0.25,
  'train/action_share/Left': 0.25,
  'train/action_share/Right': 0.25,
};

const watch = (o: RunConfigOverrides = {}) => new LearningWatch(buildRunConfig('quick-cpu', o));
/** The codes raised over a sequence of steps. */
function codes(w: LearningWatch, steps: Record<string, number>[]): string[] {
  return steps.flatMap((m, i) => w.onStep(i + 1, m).map((x) => x.code));
}
const repeat = (m: Record<string, number>, n: number) => Array.from({ length: n }, () => m);

/** Every warning a run of `config` can raise, each from the steps (or validations) that raise it. */
function everyWarning(config: RunConfig) {
  const raise = (steps: Record<string, number>[]) => {
    const w = new LearningWatch(config);
    return steps.flatMap((m, i) => w.onStep(i + 1, m));
  };
  const v = new LearningWatch(config);
  return [
    ...raise(repeat({ ...healthy, 'train/well_formed_rate': 0, 'rollout/in_group_reward_std_max': 0, 'actor/grad_norm': 0 }, 2)),
    ...raise([{ ...healthy, 'train/action_share/Down': 0.9 }]),
    ...raise([...repeat(healthy, 3), ...repeat({ ...healthy, 'rollout/in_group_reward_std': 0.01, 'actor/entropy': 0.01 }, 3)]),
    ...raise(repeat({ ...healthy, 'rollout/empty_after_filter': 1 }, 2)),
    ...v.onValidation(0, 0),
    ...v.onValidation(5, 0),
  ];
}

/** The settings a message's advice ("Change: …") asks for with a value: `path value`, `path=value` or `path, e.g. value`. */
function advised(message: string): [string, string][] {
  const advice = message.split('Change: ')[1] ?? '';
  return [
    ...advice.matchAll(/\b((?:ppo|filter|rollout|algorithm|env|model)\.[\w.]+)(?:=|, e\.g\. | )(-?\d[\d.e-]*|true|false|[a-z]+)/g),
  ].map((m) => [m[1]!, m[2]!.replace(/\.$/, '')]);
}
const valueAt = (o: unknown, path: string) => path.split('.').reduce<unknown>((x, k) => (x as Record<string, unknown> | undefined)?.[k], o);

describe('learning warnings', () => {
  it('raise nothing on healthy steps and validations', () => {
    const w = watch();
    expect(codes(w, repeat(healthy, 12))).toEqual([]);
    expect(w.onValidation(5, 0.3)).toEqual([]);
    expect(w.onValidation(10, 0.35)).toEqual([]);
  });

  it('every reply malformed for two steps: names the from-scratch base and what to start from', () => {
    const malformed = {
      ...healthy,
      'train/well_formed_rate': 0,
      'rollout/in_group_reward_std': 0,
      'rollout/in_group_reward_std_max': 0,
      'actor/grad_norm': 0,
    };
    const w = watch({ model: { base: 'starpo-tiny/tiny' } });
    const first = w.onStep(1, malformed).map((x) => x.code);
    expect(first).not.toContain('no_well_formed_replies'); // one step could be bad luck
    const second = w.onStep(2, malformed);
    const msg = second.find((x) => x.code === 'no_well_formed_replies')!.message;
    expect(msg).toMatch(/from scratch \(starpo-tiny\/tiny\)/);
    expect(msg).toMatch(/starpo-base\/sokoban-tiny/);
    // raised once while it lasts, again after it clears and returns
    expect(codes(w, [malformed, malformed])).not.toContain('no_well_formed_replies');
    expect(codes(w, [healthy, malformed, malformed])).toContain('no_well_formed_replies');
    // a base that writes some well-formed replies never raises it
    expect(codes(watch(), repeat({ ...healthy, 'train/well_formed_rate': 0.05 }, 5))).not.toContain('no_well_formed_replies');
  });

  it('a zero gradient norm is raised at once, a small one is not', () => {
    expect(watch().onStep(1, { ...healthy, 'actor/grad_norm': 0 })[0]).toMatchObject({ code: 'zero_grad_norm', step: 1 });
    expect(codes(watch(), [{ ...healthy, 'actor/grad_norm': 1e-4 }])).toEqual([]);
    // no update at all (empty batch after the filter) reports no grad norm: no warning from it
    const { 'actor/grad_norm': _, ...noUpdate } = healthy;
    expect(codes(watch(), [noUpdate])).toEqual([]);
  });

  it('zero in-group reward variance in every group of the batch', () => {
    const flat = { ...healthy, 'rollout/in_group_reward_std': 0, 'rollout/in_group_reward_std_max': 0 };
    const w = watch();
    expect(w.onStep(1, flat).map((x) => x.code)).toEqual(['no_reward_variance']);
    expect(w.onStep(1, flat)[0]?.message).toBeUndefined(); // not repeated
    // one group with a spread is enough signal
    expect(codes(watch(), [{ ...flat, 'rollout/in_group_reward_std': 0.02, 'rollout/in_group_reward_std_max': 0.5 }])).toEqual([]);
  });

  it('a policy drifting to one action (action_share)', () => {
    const down = {
      ...healthy,
      'train/action_share/Down': 0.86,
      'train/action_share/Up': 0.06,
      'train/action_share/Left': 0.04,
      'train/action_share/Right': 0.04,
    };
    const raised = watch().onStep(3, down);
    expect(raised.map((x) => x.code)).toEqual(['action_collapse']);
    expect(raised[0]!.message).toMatch(/86% of the executed actions were "Down"/);
    expect(codes(watch(), [{ ...down, 'train/action_share/Down': 0.6, 'train/action_share/Up': 0.32 }])).toEqual([]);
    // too few actions to judge: a batch that executed 1 action per 64 episodes
    expect(codes(watch(), [{ ...down, 'train/num_actions': 0.2 }])).toEqual([]);
  });

  it('echo-trap signs: in-group reward std and entropy collapsing below their first steps', () => {
    const w = watch();
    const low = { ...healthy, 'rollout/in_group_reward_std': 0.05 };
    const seq = [...repeat(healthy, 3), low, low];
    expect(codes(w, seq)).toEqual([]); // two low steps are noise
    expect(w.onStep(6, low).map((x) => x.code)).toEqual(['reward_variance_falling']);
    const dip = [...repeat(healthy, 3), low, low, healthy, low, low];
    expect(codes(watch(), dip)).toEqual([]);

    const e = watch();
    const cold = { ...healthy, 'actor/entropy': 0.02, 'train/entropy': 0.02 };
    expect(codes(e, [...repeat(healthy, 3), cold, cold, cold])).toEqual(['entropy_collapse']);
    expect(codes(watch(), [...repeat(healthy, 3), ...repeat({ ...healthy, 'actor/entropy': 0.1 }, 6)])).toEqual([]);
  });

  it('empty batches after the variance filter, two steps in a row', () => {
    const empty = { ...healthy, 'rollout/empty_after_filter': 1 };
    expect(codes(watch(), [empty, empty])).toEqual(['empty_filtered_batches']);
    expect(codes(watch(), [empty, healthy, empty])).toEqual([]);
  });

  it('validation success below the early-stopping floor twice in a row', () => {
    const w = watch();
    expect(w.onValidation(0, 0)).toEqual([]);
    expect(w.onValidation(5, 0).map((x) => x.code)).toEqual(['low_validation_success']);
    expect(w.onValidation(10, 0)).toEqual([]);
    const v = watch();
    expect([...v.onValidation(0, 0), ...v.onValidation(5, 0.2), ...v.onValidation(10, 0)]).toEqual([]);
  });

  it('each warning names the metric it read', () => {
    const raised = everyWarning(buildRunConfig('quick-cpu', {}));
    expect(new Set(raised.map((w) => w.code))).toEqual(new Set(Object.keys(WARNING_METRICS)));
    for (const w of raised) expect(w.message, w.code).toContain(WARNING_METRICS[w.code]);
    // the entropy the warning reads is actor/entropy alone: a collapse of the rollouts' train/entropy is not it
    const cold = { ...healthy, 'train/entropy': 0.01 };
    expect(codes(watch(), [...repeat(healthy, 3), ...repeat(cold, 4)])).toEqual([]);
  });

  it("never advises a value the run already has (quick-cpu's entropy collapse: no clipRatioHigh 0.28, which it has)", () => {
    const entropy = everyWarning(buildRunConfig('quick-cpu', {})).find((w) => w.code === 'entropy_collapse')!;
    expect(entropy.message).toContain('the StarPO-S settings (filter.ratio 0.25)');
    expect(entropy.message).not.toContain('ppo.clipRatioHigh 0.28');

    const variants: RunConfigOverrides[] = [
      {},
      { filter: { ratio: 0.25, includeZero: true } },
      { ppo: { clipRatioLow: 0.28, clipRatioHigh: 0.28 } },
      { ppo: { clipRatioLow: 0.3, clipRatioHigh: 0.28, entropyCoef: 0.001, kl: { coef: 0.001 } } },
      { ppo: { lrSchedule: { type: 'constant' } }, rollout: { temperature: 1 } },
    ];
    let checked = 0;
    for (const preset of PRESET_NAMES)
      for (const env of ['sokoban', 'frozenlake', 'bandit'])
        for (const variant of variants) {
          const config = buildRunConfig(preset, { ...variant, env: { name: env } } as RunConfigOverrides);
          for (const w of everyWarning(config))
            for (const [path, value] of advised(w.message)) {
              checked++;
              expect(String(valueAt(config, path)), `${preset} ${env} ${JSON.stringify(variant)} ${w.code}: ${path} ${value}`).not.toBe(
                value,
              );
            }
        }
    expect(checked).toBeGreaterThan(100);
  });
});
