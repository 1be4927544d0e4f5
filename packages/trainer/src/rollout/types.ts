import type { DiagnosticFlag, EnvSnapshot, ParsedReply, TurnDiagnostics } from '@starpo/envs';

export type SplitName = 'train' | 'val';

export interface RolloutTurn {
  index: number;
  observation: string;
  /** State before the turn's actions. */
  snapshot: EnvSnapshot;
  /** The reply as generated, with the prefilled `<think>` put back. */
  rawReply: string;
  parsed: ParsedReply;
  /** Valid actions actually executed (cut by the trajectory cap or an early `done`). */
  executed: string[];
  effectiveCount: number;
  /** Sum of the environment's rewards this turn. */
  envReward: number;
  /** The reward of each executed action, in order. */
  actionRewards: number[];
  /** Format penalty applied this turn (0 or the configured negative value). */
  penalty: number;
  done: boolean;
  promptTokens: number;
  responseTokens: number;
  meanLogProb: number | null;
  meanEntropy: number | null;
  /** Reasoning checks (filled in after the rollout by `diagnoseBatch`). */
  diagnostics?: TurnDiagnostics;
}

export interface Trajectory {
  split: SplitName;
  group: number;
  indexInGroup: number;
  seed: number;
  env: string;
  turns: RolloutTurn[];
  finalSnapshot: EnvSnapshot;
  success: boolean;
  /** The environment failed during the episode (onError fail-episode): its error. The episode counts as failed. */
  envError?: string;
  envReward: number;
  penalty: number;
  /** envReward + penalty: what the learner optimises. */
  totalReward: number;
  numActions: number;
  /**
   * The training tokens: each turn's reply after exactly the prompt it was sampled from. Turns whose
   * prompts extend one another share one sequence (a segment); a turn sampled from a cut context (the
   * oldest turns dropped, or last_k) starts a new one. Segments are laid end to end here.
   */
  ids: number[];
  lossMask: number[];
  /** Token index where each segment starts ([0] when the whole dialogue is one sequence). */
  segmentStarts: number[];
  turnSpans: [number, number][];
  /** Per token: the trajectory reward on the last trained token, 0 elsewhere. */
  scores: number[];
  /** Per turn reward (env + penalty), for turn-level estimators. */
  turnRewards: number[];
  /** Reasoning-diagnostic flags (filled in by `diagnoseBatch`). */
  flags?: DiagnosticFlag[];
}
