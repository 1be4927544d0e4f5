import { ValidationError, toFieldErrors, type FieldError } from './errors.js';
import { PRESET_NAMES, isPresetName, merge, presetOverrides, type PresetName, type RunConfigOverrides } from './presets.js';
import { runConfigSchema, type RunConfig } from './run-config.js';

export type ConfigResult = { ok: true; config: RunConfig } | { ok: false; errors: FieldError[] };

/** Validate a full or partial config; every wrong field is reported, by path. */
export function validateRunConfig(input: unknown): ConfigResult {
  const parsed = runConfigSchema.safeParse(input ?? {});
  return parsed.success ? { ok: true, config: parsed.data } : { ok: false, errors: toFieldErrors(parsed.error) };
}

/** A preset's overrides merged with the caller's, then validated. Throws ValidationError. */
export function buildRunConfig(preset: PresetName | string | undefined, overrides: RunConfigOverrides = {}): RunConfig {
  if (preset !== undefined && !isPresetName(preset)) {
    throw new ValidationError([{ path: 'preset', message: `unknown preset "${preset}"; known: ${PRESET_NAMES.join(', ')}` }]);
  }
  const result = validateRunConfig(merge(preset ? presetOverrides(preset, overrides) : {}, overrides));
  if (!result.ok) throw new ValidationError(result.errors);
  return result.config;
}

/** Set one dotted path from a CLI-style `path=value` string; the value is parsed as JSON when it can be. */
export function applySetting(target: Record<string, unknown>, assignment: string): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new ValidationError([{ path: assignment, message: 'expected path=value' }], 'setting');
  const path = assignment.slice(0, eq).split('.');
  const raw = assignment.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a bare string
  }
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}
