// The batch-endpoint load of bench:api, from a process of its own so that the client's encoding and
// HTTP work do not share the API's event loop (a Python trainer posts from its own process too).
// argv[2]: JSON { url, token, runId, requests, concurrency }; replies { seconds } over IPC.
import { performance } from 'node:perf_hooks';

const { url, token, runId, requests, concurrency } = JSON.parse(process.argv[2]);
// bodies built before the clock starts: 1,000 points a request, 50 keys × 20 steps
const bodies = Array.from({ length: requests }, (_, r) =>
  JSON.stringify({
    points: Array.from({ length: 1000 }, (_, i) => ({ key: `bench/key_${i % 50}`, step: r * 20 + Math.floor(i / 50), value: i })),
  }),
);
const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < requests) {
      const res = await fetch(`${url}/api/runs/${runId}/ingest/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: bodies[next++],
      });
      if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  }),
);
process.send({ seconds: (performance.now() - t0) / 1000 });
