import { describe, expect, it } from 'vitest';
import {
  biLevelGae,
  discountedReturns,
  gae,
  gigpoAdvantages,
  grpoAdvantages,
  maskedWhiten,
  normalizeScores,
  tokenReturns,
  type GigpoStepRow,
} from '../src/algo/advantages.js';
import { ADV_ESTIMATORS, buildRunConfig } from '@starpo/contracts';
import { ESTIMATORS, type EstimatorSample } from '../src/algo/estimators.js';
import { computeAdvantages } from '../src/train/advantage-step.js';
import { actionSlots, type Sample } from '../src/train/batch.js';

const close = (got: number[], want: number[], tol = 2e-6) => {
  expect(got).toHaveLength(want.length);
  got.forEach((g, i) => expect(Math.abs(g - want[i]!), `index ${i}: ${g} vs ${want[i]}`).toBeLessThan(tol));
};

// Expected values: a float64 NumPy re-implementation of VERL's, verl-agent's and ROLL's code paths (their
// float32 originals differ by about 1e-6); each test gives the inputs and the reference outputs it checks.
describe('group-relative advantages (GRPO, Dr.GRPO)', () => {
  const g4 = [0, 0, 0, 0];
  it('rewards [1, 0, 0, 1]: the unbiased std (0.5773503) gives ±0.866, mean-only ±0.5', () => {
    close(grpoAdvantages([1, 0, 0, 1], g4, { normByStd: true }), [0.866024, -0.866024, -0.866024, 0.866024]);
    close(grpoAdvantages([1, 0, 0, 1], g4, { normByStd: false }), [0.5, -0.5, -0.5, 0.5]);
  });
  it('rewards [0.5, 0.2, 0.9]', () => {
    const g = [0, 0, 0];
    close(grpoAdvantages([0.5, 0.2, 0.9], g, { normByStd: true }), [-0.094916, -0.949155, 1.044071]);
    close(grpoAdvantages([0.5, 0.2, 0.9], g, { normByStd: false }), [-0.033333, -0.333333, 0.366667]);
  });
  it('singleton follows VERL (raw score), all-equal gives zeros, groups are independent', () => {
    close(grpoAdvantages([1], [0], { normByStd: true }), [0.999999]);
    close(grpoAdvantages([1, 1, 1, 1], g4, { normByStd: true }), [0, 0, 0, 0]);
    close(grpoAdvantages([1, 0, 5, 5], ['a', 'a', 'b', 'b'], { normByStd: false }), [0.5, -0.5, 0, 0]);
  });
});

describe('group statistics over step rows (cross-step) or once per trajectory', () => {
  const scores = [1, 1, 1, 0];
  const groups = [0, 0, 0, 0];
  it('cross-step (every row counts)', () => {
    close(grpoAdvantages(scores, groups, { normByStd: true }), [0.499999, 0.499999, 0.499999, -1.499997]);
    close(grpoAdvantages(scores, groups, { normByStd: false }), [0.25, 0.25, 0.25, -0.75]);
  });
  it('per-trajectory dedupe (episode ids)', () => {
    close(grpoAdvantages(scores, groups, { normByStd: true, episodeIds: ['A', 'A', 'A', 'B'] }), [0.707106, 0.707106, 0.707106, -0.707106]);
  });
});

describe('GAE and whitening', () => {
  it('γ = λ = 1', () => {
    const r = gae([0, 0, 1], [0.5, 0.6, 0.7], [1, 1, 1], 1, 1);
    close(r.advantages, [0.5, 0.4, 0.3]);
    close(r.returns, [1, 1, 1]);
    close(maskedWhiten([r.advantages], [[1, 1, 1]])[0]!, [1.0, 0.0, -0.999999]);
  });
  it('γ = 0.99, λ = 0.95', () => {
    const r = gae([0, 0, 1], [0.5, 0.6, 0.7], [1, 1, 1], 0.99, 0.95);
    close(r.advantages, [0.446829, 0.37515, 0.3]);
    close(r.returns, [0.946829, 0.97515, 1.0]);
    close(maskedWhiten([r.advantages], [[1, 1, 1]])[0]!, [0.992026, 0.01576, -1.007786]);
  });
  it('mask-aware: observation tokens carry value and advantage through', () => {
    const mask = [1, 1, 0, 1];
    const r = gae([0, 0, 0, 1], [0.2, 0.3, 0.9, 0.5], mask, 1, 1);
    close([r.advantages[0]!, r.advantages[1]!, r.advantages[3]!], [0.8, 0.7, 0.5]);
    expect(r.advantages[2]).toBeCloseTo(0.5);
    close([r.returns[0]!, r.returns[1]!, r.returns[3]!], [1, 1, 1]);
    const w = maskedWhiten([r.advantages], [mask])[0]!;
    close([w[0]!, w[1]!, w[3]!], [0.872871, 0.218218, -1.091089]);
  });
  it('whitening with one valid token leaves values unchanged', () => {
    expect(maskedWhiten([[3, 4]], [[1, 0]])).toEqual([[3, 4]]);
  });
});

describe('discounted step returns, token returns', () => {
  it('γ = 0.95', () => {
    close(discountedReturns([0, 0, 1], 0.95), [0.9025, 0.95, 1.0]);
    close(discountedReturns([-0.1, -0.1, 10.9], 0.95), [9.64225, 10.255, 10.9]);
  });
  it('token returns with γ = 1 put the same value on every trained token', () => {
    expect(tokenReturns([0, 0, 0, 2], [1, 0, 1, 1], 1)).toEqual([2, 0, 2, 2]);
  });
});

describe('ROLL reward normalisation', () => {
  it('mean_std → ±0.866 for [1,0,0,1]; asym_clip clamps to [−1, 3]; mean; singletons zero', () => {
    close(normalizeScores([1, 0, 0, 1], [0, 0, 0, 0], 'mean_std'), [0.866024, -0.866024, -0.866024, 0.866024]);
    const sixteen = [1, ...new Array(15).fill(0)];
    const g16 = new Array(16).fill(0);
    close(normalizeScores(sixteen, g16, 'mean').slice(0, 2), [0.9375, -0.0625]);
    close(normalizeScores(sixteen, g16, 'mean_std').slice(0, 2), [3.749985, -0.249999], 2e-5);
    close(normalizeScores(sixteen, g16, 'asym_clip').slice(0, 2), [3.0, -0.249999], 2e-5);
    close(normalizeScores([0, ...new Array(15).fill(1)], g16, 'asym_clip').slice(0, 2), [-1.0, 0.249999], 2e-5);
    expect(normalizeScores([1], [0], 'mean')).toEqual([0]);
    expect(normalizeScores([1], [0], 'mean_std')).toEqual([0]);
    expect(normalizeScores([2, 3], [0, 1], 'identity')).toEqual([2, 3]);
  });
  it('the trajectory-wise GRPO pipeline: normalise → γ=1 returns → whiten over tokens → clip 0.2 gives ±0.2', () => {
    const norm = normalizeScores([1, 0, 0, 1], [0, 0, 0, 0], 'mean_std');
    const counts = [2, 3, 1, 2];
    const tokens = counts.map((n, i) => new Array(n).fill(norm[i]!));
    const white = maskedWhiten(
      tokens,
      tokens.map((r) => r.map(() => 1)),
    );
    close(white.flat().map(Math.abs), new Array(8).fill(0.935414));
    expect(white.flat().map((v) => Math.max(-0.2, Math.min(0.2, v)))).toEqual([0.2, 0.2, -0.2, -0.2, -0.2, -0.2, 0.2, 0.2]);
  });
});

describe('GiGPO on three trajectories through shared states (γ 0.95, ω 1)', () => {
  const traj = [
    {
      id: 't1',
      steps: [
        ['s0', 0],
        ['s1', 1],
      ],
    },
    {
      id: 't2',
      steps: [
        ['s0', 0],
        ['s2', 0],
        ['s1', 1],
      ],
    },
    {
      id: 't3',
      steps: [
        ['s0', 0],
        ['s2', 0],
        ['s2', 0],
      ],
    },
  ] as const;
  const build = (penaltyOnLast = 0): GigpoStepRow[] =>
    traj.flatMap((t) => {
      const rewards = t.steps.map(([, r]) => r as number);
      const returns = discountedReturns(rewards, 0.95);
      const episode = rewards.reduce((a, b) => a + b, 0);
      return t.steps.map(([anchor], k) => {
        const last = t.id === 't3' && k === 2;
        return {
          group: 0,
          trajectory: t.id,
          anchor,
          stepReturn: returns[k]! - (last ? penaltyOnLast : 0),
          episodeReward: episode - (last ? penaltyOnLast : 0),
        };
      });
    });

  it('mean_norm (VA cross-step episode statistics)', () => {
    const a = gigpoAdvantages(build(), { stepWeight: 1, mode: 'mean_norm', episodeCrossSteps: true });
    close(a.episode, [0.375, 0.375, 0.375, 0.375, 0.375, -0.625, -0.625, -0.625]);
    close(a.step, [0.3325, 0, 0.285, 0.633333, 0, -0.6175, -0.316667, -0.316667]);
    close(a.total, [0.7075, 0.375, 0.66, 1.008333, 0.375, -1.2425, -0.941667, -0.941667]);
  });
  it('mean_std_norm (VA cross-step)', () => {
    const a = gigpoAdvantages(build(), { stepWeight: 1, mode: 'mean_std_norm', episodeCrossSteps: true });
    close(a.episode, [0.724567, 0.724567, 0.724567, 0.724567, 0.724567, -1.207612, -1.207612, -1.207612]);
    close(a.step, [0.621148, 0, 0.532413, 1.154698, 0, -1.153561, -0.577349, -0.577349]);
    close(a.total, [1.345716, 0.724567, 1.25698, 1.879266, 0.724567, -2.361174, -1.784962, -1.784962]);
  });
  it('per-trajectory episode advantage (paper Eq. 3, our default)', () => {
    const m = gigpoAdvantages(build(), { stepWeight: 1, mode: 'mean_norm' });
    close([m.episode[0]!, m.episode[2]!, m.episode[5]!], [0.333333, 0.333333, -0.666667]);
    const s = gigpoAdvantages(build(), { stepWeight: 1, mode: 'mean_std_norm' });
    close([s.episode[0]!, s.episode[2]!, s.episode[5]!], [0.577349, 0.577349, -1.154699]);
  });
  it('invalid last action penalised by 0.1 after discounting', () => {
    const a = gigpoAdvantages(build(0.1), { stepWeight: 1, mode: 'mean_norm', episodeCrossSteps: true });
    close(a.total, [0.72, 0.3875, 0.6725, 1.054167, 0.3875, -1.23, -0.895833, -1.095833]);
  });
});

describe('bi-level GAE', () => {
  it('with γ = λ = 1 and zero values equals the sum of later turn rewards on every trained token', () => {
    // two turns: tokens 0-1 (turn 1, end 1), token 2 observation, tokens 3-4 (turn 2, end 4)
    const r = biLevelGae([0, 0, 0, 0, 0], [1, 1, 0, 1, 1], [1, 4], [0.5, 2], { gamma: 1, lambda: 1, highGamma: 1 });
    close([r.advantages[0]!, r.advantages[1]!, r.advantages[3]!, r.advantages[4]!], [2.5, 2.5, 2, 2]);
  });
  it('the high-level γ discounts later turns', () => {
    const r = biLevelGae([0, 0, 0, 0], [1, 1, 1, 1], [1, 3], [0, 1], { gamma: 1, lambda: 1, highGamma: 0.5 });
    close([r.advantages[1]!, r.advantages[3]!], [0.5, 1]);
  });
});

describe('negative advantage scale (positive-sample reinforcement)', () => {
  const sample = (score: number): Sample => ({
    traj: { group: 0 } as Sample['traj'],
    ids: [1, 2, 3],
    mask: [1, 1],
    rewards: [0, score],
    klRewards: null,
    oldLogProbs: [0, 0],
    refLogProbs: null,
    values: null,
    advantages: [0, 0],
    returns: [0, 0],
  });
  const run = (scale: number) => {
    const samples = [sample(1), sample(0)];
    const c = buildRunConfig(undefined, {
      algorithm: { advEstimator: 'grpo', grpoNormByStd: false, whitenAdvantages: false, negativeAdvantageScale: scale },
    });
    computeAdvantages(samples, c);
    for (const s of samples) s.advantages = s.advantages.map((v) => v + 0); // −0 → 0
    return samples;
  };
  it('1 keeps the estimate; 0.25 and 0 shrink only the negative side; returns stay as estimated', () => {
    expect(run(1).map((s) => s.advantages)).toEqual([
      [0.5, 0.5],
      [-0.5, -0.5],
    ]);
    expect(run(0.25).map((s) => s.advantages)).toEqual([
      [0.5, 0.5],
      [-0.125, -0.125],
    ]);
    const psr = run(0);
    expect(psr.map((s) => s.advantages)).toEqual([
      [0.5, 0.5],
      [0, 0],
    ]);
    expect(psr[1]!.returns).toEqual([-0.5, -0.5]);
  });
});

describe('turn_return', () => {
  // ids 0..7; positions are ids[1..]: two turns, tokens 1–3 and 5–6 trained, 4 is an observation token.
  const sample = (): Sample => ({
    traj: {
      group: 0,
      ids: [0, 1, 2, 3, 4, 5, 6, 7],
      turnSpans: [
        [1, 4],
        [5, 7],
      ],
      turnRewards: [0.9, 10.9],
      // Turn 1: a move closer (+0.9), a wall bump (−0.1), another move closer; turn 2: a move closer, then the solving push.
      turns: [
        { actionRewards: [0.9, -0.1, 0.9], penalty: -0.8 },
        { actionRewards: [0.9, 11.9], penalty: 0, diagnostics: { contradicted: 1 } },
      ],
    } as unknown as Sample['traj'],
    ids: [0, 1, 2, 3, 4, 5, 6, 7],
    mask: [1, 1, 1, 0, 1, 1, 0],
    rewards: [0, 0, 0, 0, 0, 11.8, 0],
    klRewards: null,
    oldLogProbs: new Array(7).fill(0),
    refLogProbs: null,
    values: null,
    advantages: new Array(7).fill(0),
    returns: new Array(7).fill(0),
  });
  const run = (algorithm: Record<string, unknown>, prepare?: (s: Sample) => void) => {
    const s = sample();
    prepare?.(s);
    computeAdvantages(
      [s],
      buildRunConfig(undefined, { algorithm: { advEstimator: 'turn_return', whitenAdvantages: false, ...algorithm } }),
    );
    return s.advantages;
  };
  it('γ = 0: each turn gets its own reward; observation tokens get 0', () => {
    expect(run({ highLevelGamma: 0 })).toEqual([0.9, 0.9, 0.9, 0, 10.9, 10.9, 0]);
  });
  it('γ = 0.5 adds the discounted later turns; the advantage clip bounds it', () => {
    const a = run({ highLevelGamma: 0.5 });
    expect(a[0]).toBeCloseTo(0.9 + 0.5 * 10.9);
    expect(a[4]).toBeCloseTo(10.9);
    expect(run({ highLevelGamma: 0, advantageClip: 3 })).toEqual([0.9, 0.9, 0.9, 0, 3, 3, 0]);
  });
  it('weakest credit: a turn is worth its action count times its worst action, plus its penalty', () => {
    const a = run({ highLevelGamma: 0, turnCredit: 'weakest' });
    expect(a[0]).toBeCloseTo(3 * -0.1 - 0.8);
    expect(a[4]).toBeCloseTo(2 * 0.9);
    expect(a[3]).toBe(0);
  });
  it('grounded credit only: a turn with a contradicted claim keeps its negative credit but loses its positive one', () => {
    expect(run({ highLevelGamma: 0, groundedCreditOnly: true })).toEqual([0.9, 0.9, 0.9, 0, 0, 0, 0]);
    expect(run({ highLevelGamma: 0, turnCredit: 'weakest', groundedCreditOnly: true })[0]).toBeCloseTo(-1.1);
  });
  it("consistent credit only: a turn whose answer departs from its think text's decision keeps no positive credit, action words included", () => {
    const a = run({ highLevelGamma: 0, turnCredit: 'action', actionNegativeScale: 1, consistentCreditOnly: true }, (s) => {
      s.traj.turns[1]!.diagnostics = { thinkAnswer: 'mismatch' } as unknown as NonNullable<Sample['traj']['turns'][number]['diagnostics']>;
      s.traj.turnRewards = [-1.3, 10.9];
      s.actionSlots = [-1, 1, -1, -1, 0, 1, -1];
    });
    // turn 1 is consistent: its credit stays (−1.3 on the words, −0.1 on the wall bump); turn 2's good moves are not paid
    expect(a).toEqual([-1.3, -0.1, -1.3, 0, 0, 0, 0]);
  });
  it('reasoning bonus: a grounded turn and a consistent one earn their bonuses; a contradicted one and a claimless one do not', () => {
    const diagnosed = (s: Sample) => {
      s.traj.turns[0]!.diagnostics = { checkable: 2, contradicted: 0, thinkAnswer: 'consistent' } as never;
      s.traj.turns[1]!.diagnostics = { checkable: 1, contradicted: 1, thinkAnswer: 'consistent' } as never;
    };
    // turn 1: grounded (+0.5) and consistent (+0.25); turn 2: contradicted, consistent only (+0.25)
    expect(run({ highLevelGamma: 0, reasoningBonus: { grounded: 0.5, consistent: 0.25 } }, diagnosed)).toEqual([
      1.65, 1.65, 1.65, 0, 11.15, 11.15, 0,
    ]);
    // a think text with no verifiable claim is not grounded
    const claimless = (s: Sample) => (s.traj.turns[0]!.diagnostics = { checkable: 0, contradicted: 0, thinkAnswer: 'unknown' } as never);
    expect(run({ highLevelGamma: 0, reasoningBonus: { grounded: 0.5 } }, claimless)[0]).toBe(0.9);
    // off by default: the same turns, no bonus
    expect(run({ highLevelGamma: 0 }, diagnosed)).toEqual([0.9, 0.9, 0.9, 0, 10.9, 10.9, 0]);
  });
  it('reasoning bonus joins the trajectory score that GRPO compares within a group', () => {
    const grounded = (s: Sample) => (s.traj.turns[0]!.diagnostics = { checkable: 1, contradicted: 0, thinkAnswer: 'unknown' } as never);
    const a = sample();
    const b = sample();
    grounded(a);
    const bonus = computeAdvantages(
      [a, b],
      buildRunConfig(undefined, {
        algorithm: { advEstimator: 'grpo', grpoNormByStd: false, whitenAdvantages: false, reasoningBonus: { grounded: 1 } },
      }),
    );
    // scores 12.8 and 11.8 in one group: ±0.5 on every trained token
    expect(a.advantages[0]).toBeCloseTo(0.5);
    expect(b.advantages[0]).toBeCloseTo(-0.5);
    // the mean bonus a trajectory earned (train/reward/reasoning_bonus): 1 and 0
    expect(bonus).toBe(0.5);
  });
  it('action credit: an action word gets its own action reward, the rest of the reply its turn credit', () => {
    const s = sample();
    // turn 1 trains positions 0–2: one plan word for action 1 (the wall bump) at 1; turn 2 (4–5): answer words for actions 0 and 1
    s.actionSlots = [-1, 1, -1, -1, 0, 1, -1];
    computeAdvantages(
      [s],
      buildRunConfig(undefined, {
        algorithm: { advEstimator: 'turn_return', whitenAdvantages: false, highLevelGamma: 0, turnCredit: 'action', advantageClip: 3 },
      }),
    );
    expect(s.advantages).toEqual([0.9, -0.1, 0.9, 0, 0.9, 3, 0]);
  });
  it('action credit with negatives on action words only: a bad move is pushed down, the wording of a bad turn is not', () => {
    const s = sample();
    s.traj.turnRewards = [-1.3, 10.9];
    s.actionSlots = [-1, 1, -1, -1, 0, 1, -1];
    computeAdvantages(
      [s],
      buildRunConfig(undefined, {
        algorithm: {
          advEstimator: 'turn_return',
          whitenAdvantages: false,
          highLevelGamma: 0,
          turnCredit: 'action',
          negativeAdvantageScale: 0,
          actionNegativeScale: 1,
        },
      }),
    );
    expect(s.advantages).toEqual([0, -0.1, 0, 0, 0.9, 11.9, 0]);
  });
});

describe('action slots', () => {
  /** One turn whose reply is `words` (one token each) after an <|im_start|> token; target position t scores word t. */
  function slotsOf(words: string[], executed: string[], actions = ['Up', 'Right', 'Down', 'Left']) {
    const ids = [99, ...words.map((_, i) => i)];
    const traj = { ids, turnSpans: [[1, ids.length]], turns: [{ executed }] } as unknown as Sample['traj'];
    const slots = actionSlots(traj, (id) => (id === 99 ? '<|im_start|>' : words[id]!), actions);
    return { slots, named: slots.map((k, t) => (k !== -1 ? `${words[t]!.trim()}@${t}:${k}` : null)).filter(Boolean) };
  }
  const reply = (think: string[], answer: string[]) => [
    ...think,
    '</think>',
    '<answer>',
    ...answer.flatMap((w, i) => (i ? [' || ', w] : [w])),
    '</answer>',
  ];

  it("a plan that is exactly the executed moves numbers its words and the answer's from 0", () => {
    const words = reply([' The', ' box', ' is', ' 2', ' left', '.', ' Plan', ':', ' Left', ',', ' Up', '.'], ['Left', 'Up']);
    const { slots, named } = slotsOf(words, ['Left', 'Up']);
    expect(named).toEqual(['Left@8:0', 'Up@10:1', 'Left@14:0', 'Up@16:1']);
    expect(slots[4]).toBe(-1); // "left" in a relation claim is not an action word
  });
  it('an answer word whose move did not run is NOT_EXECUTED; a plan that does not end in the executed moves keeps turn credit', () => {
    const { named } = slotsOf(reply([' Plan', ':', ' Left', ',', ' Up'], ['Left', 'Up']), ['Left', 'Down']);
    expect(named).toEqual(['Left@7:0', 'Up@9:-2']);
  });
  it('a think text that weighs an action it does not choose leaves the decision credited (Bandit)', () => {
    const words = reply(
      [' Dragon', ' sounds', ' bold', '.', ' Phoenix', ' sounds', ' safe', '.', ' I', ' choose', ' Phoenix'],
      ['Phoenix'],
    );
    const { named } = slotsOf(words, ['Phoenix'], ['Phoenix', 'Dragon']);
    // before: Dragon took slot 0 and both Phoenix words were NOT_EXECUTED, so the decision had advantage 0
    expect(named).toEqual(['Phoenix@10:0', 'Phoenix@13:0']);
  });
  it('a rejected move, out-of-order mentions and repeats are not read as the plan', () => {
    // "not Up" rejects a move, then the plan names the executed ones last
    expect(slotsOf(reply([' Not', ' Up', '.', ' Go', ' Right', ',', ' Down'], ['Right', 'Down']), ['Right', 'Down']).named).toEqual([
      'Right@4:0',
      'Down@6:1',
      'Right@9:0',
      'Down@11:1',
    ]);
    // mentions out of order: the last words are Down, Right, not the executed Right, Down
    expect(
      slotsOf(reply([' Right', ',', ' Down', '?', ' No', ':', ' Down', ',', ' Right'], ['Right', 'Down']), ['Right', 'Down']).named,
    ).toEqual(['Right@11:0', 'Down@13:1']);
    // a repeated word: Up, Up planned but one Up ran (the cap): only the last Up is the plan
    expect(slotsOf(reply([' Up', ',', ' Up'], ['Up', 'Up']), ['Up']).named).toEqual(['Up@2:0', 'Up@5:0', 'Up@7:-2']);
  });
});

describe('KL in the reward', () => {
  // Two trajectories of one group with the same moves and rewards (two turns: positions 0–2 and 4–5);
  // only the first pays a KL penalty, on its second turn.
  const sample = (kl: boolean): Sample => ({
    traj: {
      group: 0,
      env: 'sokoban',
      ids: [0, 1, 2, 3, 4, 5, 6, 7],
      turnSpans: [
        [1, 4],
        [5, 7],
      ],
      turnRewards: [0.5, 1],
      turns: [
        { actionRewards: [0.5], penalty: 0, observation: 'a' },
        { actionRewards: [1], penalty: 0, observation: 'b' },
      ],
    } as unknown as Sample['traj'],
    ids: [0, 1, 2, 3, 4, 5, 6, 7],
    mask: [1, 1, 1, 0, 1, 1, 0],
    rewards: [0, 0, 0, 0, 0, 1.5, 0],
    klRewards: kl ? [0, 0, 0, 0, -0.2, -0.3, 0] : null,
    oldLogProbs: new Array(7).fill(0),
    refLogProbs: null,
    values: new Array(7).fill(0),
    advantages: new Array(7).fill(0),
    returns: new Array(7).fill(0),
  });
  const advantages = (advEstimator: (typeof ADV_ESTIMATORS)[number], kl: boolean, extra: Record<string, unknown> = {}) => {
    const samples = [sample(kl), sample(false)];
    const c = buildRunConfig(undefined, {
      algorithm: { advEstimator, whitenAdvantages: false, negativeAdvantageScale: 1, grpoNormByStd: false, highLevelGamma: 1, ...extra },
    });
    computeAdvantages(samples, c);
    return samples[0]!.advantages;
  };
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

  for (const name of ADV_ESTIMATORS)
    it(`reaches ${name}: the penalised trajectory's second turn is pushed down`, () => {
      const without = advantages(name, false);
      const withKl = advantages(name, true);
      // positions 4–5 are the penalised turn
      expect(sum(withKl.slice(4, 6)), name).toBeLessThan(sum(without.slice(4, 6)) - 1e-6);
    });
  it('reaches turn_return as the turn sum −0.5 on every token of that turn', () => {
    const d = advantages('turn_return', true, { highLevelGamma: 0 }).map(
      (v, t) => v - advantages('turn_return', false, { highLevelGamma: 0 })[t]!,
    );
    close(d, [0, 0, 0, 0, -0.5, -0.5, 0]);
  });
  it("reaches GiGPO's step-level advantage, not only its episode score", () => {
    const step = (kl: boolean) => {
      const both = advantages('gigpo', kl, { gigpo: { stepWeight: 1 } });
      const episodeOnly = advantages('gigpo', kl, { gigpo: { stepWeight: 0 } });
      return both.map((v, t) => v - episodeOnly[t]!);
    };
    expect(step(false)[4]).toBeCloseTo(0);
    expect(step(true)[4]).toBeLessThan(-1e-3);
  });
});

describe('estimator registry', () => {
  // one turn of three trained tokens; the second trajectory of the group scores 0
  const won: EstimatorSample = {
    rewards: [0, 0, 1],
    mask: [1, 1, 1],
    values: [0.5, 0.6, 0.7],
    group: 0,
    env: 'sokoban',
    turnRewards: [1],
    turnEnds: [2],
    turnOf: [0, 0, 0],
    turns: [{ actionRewards: [1], penalty: 0, contradicted: false, mismatched: false, observation: 'board' }],
    actionSlots: null,
  };
  const lost: EstimatorSample = { ...won, rewards: [0, 0, 0], turnRewards: [0], turns: [{ ...won.turns[0]!, actionRewards: [0] }] };
  const a = buildRunConfig(undefined, {}).algorithm;

  it('has an estimator for every algorithm.advEstimator value, each giving a value per position of every sample', () => {
    for (const name of ADV_ESTIMATORS) {
      const r = ESTIMATORS[name]([won, lost], a);
      expect(
        r.advantages.map((x) => x.length),
        name,
      ).toEqual([3, 3]);
      expect(
        r.returns.map((x) => x.length),
        name,
      ).toEqual([3, 3]);
    }
  });
  it('gae, grpo and turn_return give their formulas on the same samples', () => {
    close(ESTIMATORS.gae([won], a).advantages[0]!, [0.5, 0.4, 0.3]); // γ = λ = 1: Σ r − V_t
    // scores [1, 0]: mean 0.5, unbiased std 0.7071068
    close(ESTIMATORS.grpo([won, lost], a).advantages.flat(), [0.707106, 0.707106, 0.707106, -0.707106, -0.707106, -0.707106]);
    expect(ESTIMATORS.turn_return([won, lost], a).advantages).toEqual([
      [1, 1, 1],
      [0, 0, 0],
    ]);
  });
});
