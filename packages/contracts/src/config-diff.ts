// No zod here: the compare page needs only this, and building schemas costs the browser time at load.

/** Leaf paths where `config` differs from `reference`, for "differences from preset" views. */
export function configDiff(config: unknown, reference: unknown, prefix = ''): { path: string; value: unknown; reference: unknown }[] {
  if (typeof config === 'object' && config !== null && !Array.isArray(config) && typeof reference === 'object' && reference !== null) {
    const keys = new Set([...Object.keys(config), ...Object.keys(reference)]);
    return [...keys].flatMap((k) =>
      configDiff((config as Record<string, unknown>)[k], (reference as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k),
    );
  }
  return JSON.stringify(config) === JSON.stringify(reference) ? [] : [{ path: prefix, value: config, reference }];
}
