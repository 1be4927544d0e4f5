/** The file that makes a checkpoint step resumable (the trainer's state): a step that has it is complete. */
export const CHECKPOINT_COMPLETE_FILE = 'state.json';

/**
 * The step a run's checkpoint archive serves when none is asked for: the latest complete step, else
 * the latest. The API's archive and the dashboard's download label both read it.
 */
export function defaultArchiveStep(files: readonly { step: number; kind: string }[]): number | undefined {
  const complete = files.filter((f) => f.kind === CHECKPOINT_COMPLETE_FILE);
  const from = complete.length ? complete : files;
  return from.length ? Math.max(...from.map((f) => f.step)) : undefined;
}
