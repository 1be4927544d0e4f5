/**
 * Runs `fn` once the page is idle, at the latest after `timeoutMs`, and returns a cancel. Work that can
 * wait (opening the live socket) then stays out of a page's first data and drawing. Browsers without
 * requestIdleCallback (Safari) run it on the next task.
 */
export function whenIdle(fn: () => void, timeoutMs = 2000): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(fn, { timeout: timeoutMs });
    return () => window.cancelIdleCallback(id);
  }
  const id = setTimeout(fn, 1);
  return () => clearTimeout(id);
}
