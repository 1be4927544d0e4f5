import type { RunConfig } from '@starpo/contracts';

export type StopRule = 'empty_filtered_steps' | 'reward_variance_collapse' | 'low_validation_success';

/**
 * RAGEN's three early-stopping rules (HEAD agent_trainer.fit):
 * 1. `emptyBatchSteps` consecutive steps whose batch was empty after filtering;
 * 2. in-group reward std below `rewardStdFraction` × its baseline (mean of the first
 *    `rewardStdBaselineSteps` non-empty steps) for `rewardStdWindow` consecutive steps;
 * 3. validation success below `lowValSuccess` for `lowValPatience` consecutive validations (per key).
 * State is plain data so it can be checkpointed.
 */
export class EarlyStopper {
  state = { emptySteps: 0, baseline: [] as number[], recent: [] as number[], lowVal: {} as Record<string, number> };

  constructor(private readonly c: RunConfig['earlyStopping']) {}

  /** After each training step. Returns the rule that fired, if any. */
  onStep(o: { emptyAfterFilter: boolean; inGroupRewardStd: number }): StopRule | null {
    if (!this.c.enabled) return null;
    if (o.emptyAfterFilter) {
      this.state.emptySteps++;
      return this.state.emptySteps >= this.c.emptyBatchSteps ? 'empty_filtered_steps' : null;
    }
    this.state.emptySteps = 0;
    if (this.state.baseline.length < this.c.rewardStdBaselineSteps) {
      this.state.baseline.push(o.inGroupRewardStd);
      return null;
    }
    const base = this.state.baseline.reduce((a, b) => a + b, 0) / this.state.baseline.length;
    this.state.recent.push(o.inGroupRewardStd);
    if (this.state.recent.length > this.c.rewardStdWindow) this.state.recent.shift();
    if (this.state.recent.length === this.c.rewardStdWindow && this.state.recent.every((s) => s < this.c.rewardStdFraction * base)) {
      return 'reward_variance_collapse';
    }
    return null;
  }

  /** After each validation, with success per key (e.g. `val/sokoban/success`). */
  onValidation(success: Record<string, number>): StopRule | null {
    if (!this.c.enabled) return null;
    let fired = false;
    for (const [key, value] of Object.entries(success)) {
      this.state.lowVal[key] = value < this.c.lowValSuccess ? (this.state.lowVal[key] ?? 0) + 1 : 0;
      if (this.state.lowVal[key]! >= this.c.lowValPatience) fired = true;
    }
    return fired ? 'low_validation_success' : null;
  }
}
