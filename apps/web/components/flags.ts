/** Human names of the reasoning-diagnostic flags (DIAGNOSTIC_FLAGS of @starpo/envs). */
export const FLAG_LABELS: Record<string, string> = {
  hallucinated: 'hallucinated (a claim contradicts the state)',
  think_answer_mismatch: 'think–answer mismatch',
  outcome_mismatch: 'outcome mismatch',
  template_collapse: 'template think',
  reasoning_free_success: 'success without reasoning',
};
