let last = Date.now();

/**
 * Let timers and I/O run (a worker's heartbeat, a cancel poll, socket pings) during long
 * synchronous tensor work: tfjs on cpu/wasm resolves `data()` as a microtask, so without this a
 * generation phase could starve the event loop for minutes and get a live run requeued as stale.
 * Yields at most every `everyMs`, so it costs nothing measurable.
 */
export async function yieldToEventLoop(everyMs = 200): Promise<void> {
  if (Date.now() - last < everyMs) return;
  await new Promise((r) => setTimeout(r, 0));
  last = Date.now();
}
