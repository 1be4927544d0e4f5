import { buildRunConfig, configDiff, isPresetName } from '@starpo/contracts';
import { getPath } from './paths';

/** A nested object from `path → value` pairs. */
export function fromPaths(pairs: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, v] of pairs) setPath(out, path, v);
  return out;
}

export function setPath(o: Record<string, unknown>, path: string, v: unknown): void {
  const keys = path.split('.');
  let n = o;
  for (const k of keys.slice(0, -1)) n = (n[k] ??= {}) as Record<string, unknown>;
  n[keys.at(-1)!] = v;
}

/**
 * The launch form's state for a clone: the source's preset and environment, the fields shown up
 * front, and only what differs from that preset in the JSON overrides.
 */
export function cloneForm(
  source: { preset: string | null; config: Record<string, unknown> },
  fieldPaths: string[],
): { preset: string; env: string; base: string; values: Record<string, string>; overrides: Record<string, unknown> } {
  const preset = source.preset && isPresetName(source.preset) ? source.preset : '';
  const env = String(getPath(source.config, 'env.name') ?? 'sokoban');
  let reference: unknown = {};
  try {
    reference = buildRunConfig(preset || undefined, { env: { name: env } } as never);
  } catch {
    // an environment this build does not know: every setting counts as a difference
  }
  const values: Record<string, string> = {};
  let base = '';
  const rest: [string, unknown][] = [];
  for (const d of configDiff(source.config, reference)) {
    if (d.value === undefined || d.path === 'env.name') continue;
    if (d.path === 'model.base') base = String(d.value);
    else if (fieldPaths.includes(d.path) && typeof d.value !== 'object') values[d.path] = String(d.value);
    else rest.push([d.path, d.value]);
  }
  return { preset, env, base, values, overrides: fromPaths(rest) };
}

/** The overrides JSON without its environment section (after the environment changes); unparsable text stays as it is. */
export function withoutEnvSection(json: string): string {
  try {
    const o = JSON.parse(json || '{}') as Record<string, unknown>;
    if (!o || typeof o !== 'object' || !('env' in o)) return json;
    delete o.env;
    return JSON.stringify(o, null, 2);
  } catch {
    return json;
  }
}

/** A zod or config error as `path: message` lines a person can read (not the raw issue dump). */
export function readableError(e: unknown): string {
  const issues = (e as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  if (Array.isArray(issues)) return issues.map((i) => `${i.path.map(String).join('.') || 'value'}: ${i.message}`).join('; ');
  const fields = (e as { fields?: { path: string; message: string }[] }).fields;
  if (Array.isArray(fields)) return fields.map((f) => `${f.path}: ${f.message}`).join('; ');
  return (e as Error).message;
}
