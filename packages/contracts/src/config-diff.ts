// No zod here: the compare page needs only this, and building schemas costs the browser time at load.

/** Leaf paths where `config` differs from `reference`, for "differences from preset" views. */
export function configDiff(config: unknown, reference: unknown, prefix = ''): { path: string; value: unknown; reference: unknown }[] {
  // an object on one side and nothing on the other (a run trained elsewhere lacks whole sections) is
  // compared leaf by leaf too, so a difference is always a dotted key with a plain value
  const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (
    (isObject(config) || isObject(reference)) &&
    (isObject(config) || config === undefined) &&
    (isObject(reference) || reference === undefined)
  ) {
    const a = (config ?? {}) as Record<string, unknown>;
    const b = (reference ?? {}) as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => configDiff(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(config) === JSON.stringify(reference) ? [] : [{ path: prefix, value: config, reference }];
}
