// The batch-endpoint load of bench:api, from a process of its own so that the client's encoding and
// HTTP work do not share the API's event loop (a Python trainer posts from its own process too).
// It posts over node:http with a keep-alive agent, as a requests.Session does: undici's fetch cost
// about 3.5 ms of CPU a request here, a quarter of the two cores the measurement shares.
// argv[2]: JSON { url, token, runId, requests, concurrency }; replies { seconds, clientCpu } over IPC.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const { url, token, runId, requests, concurrency } = JSON.parse(process.argv[2]);
// bodies built before the clock starts: 1,000 points a request, 50 keys × 20 steps
const bodies = Array.from({ length: requests }, (_, r) =>
  Buffer.from(
    JSON.stringify({
      points: Array.from({ length: 1000 }, (_, i) => ({ key: `bench/key_${i % 50}`, step: r * 20 + Math.floor(i / 50), value: i })),
    }),
  ),
);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const endpoint = new URL(`${url}/api/runs/${runId}/ingest/metrics`);
const post = (body) =>
  new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${token}` };
    const req = http.request(endpoint, { method: 'POST', agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`ingest: ${res.statusCode} ${Buffer.concat(chunks)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });

const t0 = performance.now();
const cpu0 = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < requests) await post(bodies[next++]);
  }),
);
const cpu = process.cpuUsage(cpu0);
process.send({ seconds: (performance.now() - t0) / 1000, clientCpu: (cpu.user + cpu.system) / 1e6 });
agent.destroy();
