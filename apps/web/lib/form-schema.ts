import { z } from '@starpo/envs/zod';

/**
 * A form's schema for react-hook-form's zodResolver: the values as typed (`fields`), validated as the
 * request they make by the API's own schema from @starpo/contracts, so a form says what the API would
 * (same rules, same messages). Each issue lands on the field `fieldOf` names for the request's path;
 * the parsed request is what the form submits.
 */
export function requestForm<F extends z.ZodObject, R extends z.ZodType>(
  fields: F,
  toRequest: (values: z.output<F>) => unknown,
  request: R | ((values: z.output<F>) => R),
  fieldOf: (path: string) => string = (p) => p.split('.')[0]!,
) {
  return fields.transform((values, ctx): z.output<R> => {
    const schema = typeof request === 'function' ? (request as (v: z.output<F>) => R)(values) : request;
    const parsed = schema.safeParse(toRequest(values));
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', path: fieldOf(issue.path.map(String).join('.')).split('.'), message: issue.message });
    return z.NEVER;
  });
}
