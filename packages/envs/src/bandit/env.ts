import { z } from '../zod.js';
import { Rng, chanceSeed } from '../rng.js';
import { unchangedStep } from '../step.js';
import type { BanditSnapshot, Env, StepResult } from '../types.js';

/** (low-risk, high-risk) arm names: RAGEN v0423's Bandit and BanditTest configs. */
export const BANDIT_NAME_PAIRS = {
  train: { low: 'Phoenix', high: 'Dragon' },
  test: { low: 'Trader', high: 'Librarian' },
} as const;

export const banditConfigSchema = z
  .object({
    split: z.enum(['train', 'test']).default('train').describe('Which arm-name pair to use'),
    lowRiskName: z.string().min(1).max(40).optional().describe('Overrides the split’s low-risk arm name'),
    highRiskName: z.string().min(1).max(40).optional().describe('Overrides the split’s high-risk arm name'),
    lowRiskReward: z.number().default(0.1).describe('Sure payout of the low-risk arm (RAGEN code: 0.1; paper: 0.15)'),
    highRiskReward: z.number().default(1),
    highRiskProb: z.number().min(0).max(1).default(0.25),
  })
  .strict();
export type BanditConfig = z.infer<typeof banditConfigSchema>;

export class BanditEnv implements Env<BanditSnapshot> {
  readonly name = 'bandit';
  readonly config: BanditConfig;
  private arms: BanditSnapshot['arms'] = [];
  private chosen: string | null = null;
  private reward: number | null = null;
  private payoutRng = new Rng(0);

  constructor(config: Partial<BanditConfig> = {}) {
    this.config = banditConfigSchema.parse(config);
    this.arms = this.armPair();
  }

  private armPair(): BanditSnapshot['arms'] {
    const pair = BANDIT_NAME_PAIRS[this.config.split];
    return [
      { name: this.config.lowRiskName ?? pair.low, risk: 'low' },
      { name: this.config.highRiskName ?? pair.high, risk: 'high' },
    ];
  }

  get actions(): readonly string[] {
    return this.arms.map((a) => a.name);
  }
  get done(): boolean {
    return this.chosen !== null;
  }
  get success(): boolean {
    return this.arms.find((a) => a.name === this.chosen)?.risk === 'high';
  }

  reset(seed: number, stream = 0): string {
    const rng = new Rng(seed);
    const pair = this.armPair();
    this.arms = rng.float() < 0.5 ? pair : [pair[1]!, pair[0]!];
    this.payoutRng = new Rng(chanceSeed(seed, 0xba, stream));
    this.chosen = null;
    this.reward = null;
    return this.render();
  }

  step(action: string): StepResult {
    const arm = this.arms.find((a) => a.name.toLowerCase() === action.trim().toLowerCase());
    if (!arm || this.done) return unchangedStep(this.render(), this.done, this.success, !!arm);
    const { lowRiskReward, highRiskReward, highRiskProb } = this.config;
    this.chosen = arm.name;
    this.reward = arm.risk === 'low' ? lowRiskReward : this.payoutRng.float() < highRiskProb ? highRiskReward : 0;
    return { observation: this.render(), reward: this.reward, done: true, success: this.success, actionValid: true, actionEffective: true };
  }

  instructions(): string {
    return 'You are playing a bandit game. Goal: Maximize your total reward by choosing which arm to pull.';
  }

  render(): string {
    return renderBandit(this.snapshot());
  }

  restore(s: BanditSnapshot, seed = 0): void {
    this.arms = s.arms.map((a) => ({ ...a }));
    this.chosen = s.chosen;
    this.reward = s.reward;
    this.payoutRng = new Rng(chanceSeed(seed, 0xba));
  }

  snapshot(): BanditSnapshot {
    return {
      env: 'bandit',
      arms: this.arms.map((a) => ({ ...a })),
      chosen: this.chosen,
      reward: this.reward,
      done: this.done,
      success: this.success,
    };
  }
}

export function renderBandit(s: BanditSnapshot): string {
  if (s.chosen !== null) return `${s.chosen}: ${s.reward} points`;
  const [a, b] = s.arms.map((x) => x.name);
  return [
    'Game Rules:',
    `1. There are 2 arms, named ${a} and ${b}.`,
    '2. Each arm has its own reward distribution, related to their names.',
    "3. Analyze the symbolic meaning of each arm's name to guess how their reward distribution might behave.",
    `4. Based on the symbolic meaning of their names, which arm do you think is more likely to give higher rewards on average? Choose between ${a} and ${b}, and output like <answer> ${a} </answer> or <answer> ${b} </answer>.`,
  ].join('\n');
}
