import type { StepResult } from './types.js';

/** Index of `action` among `actions`, ignoring case and surrounding space; −1 when it names none. */
export function actionIndex(actions: readonly string[], action: string): number {
  const name = action.trim().toLowerCase();
  return actions.findIndex((a) => a.toLowerCase() === name);
}

/** A step that changes nothing: an invalid action, or any action once the episode is over. */
export function unchangedStep(observation: string, done: boolean, success: boolean, actionValid: boolean): StepResult {
  return { observation, reward: 0, done, success, actionValid, actionEffective: false };
}
