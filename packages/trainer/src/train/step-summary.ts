const num = (x: number | undefined, digits = 3) => (x === undefined ? '–' : x.toFixed(digits));
const pct = (x: number | undefined) => (x === undefined ? '–' : `${(100 * x).toFixed(1)}%`);

/** One line per training step for the run's log, the figures of the CLI's progress line and a few more. */
export function stepSummary(step: number, total: number, m: Record<string, number>): string {
  return [
    `step ${step}/${total}`,
    `success ${num(m['train/success'], 2)}`,
    `reward ${num(m['train/reward/mean'])}`,
    `well-formed ${pct(m['train/well_formed_rate'])}`,
    `std(group) ${num(m['rollout/in_group_reward_std'])}`,
    `entropy ${num(m['train/entropy'])}`,
    `grad norm ${num(m['actor/grad_norm'])}`,
    `kept ${num(m['rollout/filter_kept_ratio'], 2)}`,
    `${num(m['timing_s/step'], 1)} s/step`,
  ].join(' · ');
}
