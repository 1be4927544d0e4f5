/** The value at a dotted path (`rollout.validation.size`) of a JSON-like object, or undefined. */
export function getPath(o: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((n, k) => (n && typeof n === 'object' ? (n as Record<string, unknown>)[k] : undefined), o);
}
