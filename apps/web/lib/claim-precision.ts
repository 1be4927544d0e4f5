import type { TeamVerdictSummary } from '@starpo/contracts';
import type { ClaimResult } from '@starpo/envs';

/** Team verdicts on a rule's flags from which the team's own precision replaces the held-out one. */
export const TEAM_VERDICTS_ENOUGH = 20;

/**
 * How often the rule behind a flag is right, with its sample: the team's own verdicts once there
 * are enough of them, else the held-out measurement the checker ships with (never development data).
 */
export function flagPrecision(claim: ClaimResult, team?: TeamVerdictSummary): string {
  const r = team?.rules.find((x) => x.rule === claim.rule);
  const judged = r ? r.right + r.wrong : 0;
  if (r && judged >= TEAM_VERDICTS_ENOUGH) return `right on ${Math.round((100 * r.right) / judged)}% of ${judged} team verdicts`;
  const heldOut =
    claim.precision === undefined ? '' : `right on ${Math.round(claim.precision * 100)}% of ${claim.precisionFlags ?? '?'} held-out flags`;
  // the team's first verdicts are shown beside the held-out figure until there are enough to replace it
  const teamSoFar = r && judged ? `your team's verdicts: ${r.right} of ${judged} right` : '';
  return [heldOut, teamSoFar].filter(Boolean).join('; ');
}
