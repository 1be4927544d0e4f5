/**
 * A time-limited run stops after the last step that leaves room for the rest: going on costs this
 * step's scheduled validation (if due), one more step as long as this one, and the validation that
 * ends the run. Validations are estimated at the length of the last one.
 */
export function outOfTime(o: {
  deadline: number | undefined;
  now: number;
  stepSecs: number;
  validationSecs: number;
  validationEvery: number;
  validationDue: boolean;
}): boolean {
  if (o.deadline === undefined) return false;
  const nextSecs = o.stepSecs + (o.validationEvery > 0 ? o.validationSecs * (o.validationDue ? 2 : 1) : 0);
  return o.now + nextSecs * 1000 > o.deadline;
}
