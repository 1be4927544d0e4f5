import { toFieldErrors, ValidationError } from '@starpo/contracts';
import type { z } from 'zod';

/** Parse a request part with a shared zod schema; a failure is a 400 listing each wrong field. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, value: unknown, where = 'request'): z.infer<S> {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw new ValidationError(toFieldErrors(r.error), where);
  return r.data;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);
