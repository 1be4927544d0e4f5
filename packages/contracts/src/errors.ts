import type { z } from 'zod';

/** One wrong field: dotted path (e.g. `ppo.clipRatioLow`) and the reason. */
export interface FieldError {
  path: string;
  message: string;
}

export function toFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : '(root)',
    message: issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
}

/** Thrown when a config (or other input) fails validation; lists every wrong field. */
export class ValidationError extends Error {
  constructor(
    readonly fields: FieldError[],
    what = 'config',
  ) {
    super(`invalid ${what}: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`);
    this.name = 'ValidationError';
  }
}
