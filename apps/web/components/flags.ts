/**
 * The one name of each reasoning-diagnostic flag (DIAGNOSTIC_FLAGS of @starpo/envs) on every screen,
 * and what it means, for tooltips.
 */
export const FLAG_NAMES: Record<string, string> = {
  hallucinated: 'hallucinated',
  think_answer_mismatch: 'think–answer mismatch',
  outcome_mismatch: 'outcome mismatch',
  template_collapse: 'template collapse',
  reasoning_free_success: 'success without reasoning',
};

export const FLAG_MEANINGS: Record<string, string> = {
  hallucinated: 'a claim in the think text contradicts the state',
  think_answer_mismatch: 'the answer does not do what the think text planned',
  outcome_mismatch: 'the think text predicts an outcome the move does not have',
  template_collapse: 'the think text is the same template whatever the state',
  reasoning_free_success: 'solved with no reasoning in the think text',
};

export const flagName = (flag: string): string => FLAG_NAMES[flag] ?? flag.replace(/_/g, ' ');
