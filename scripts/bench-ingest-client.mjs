// The posting side of bench:api (metric points) and bench:ingest (trajectories), from a process of its
// own so that the client's encoding and HTTP work do not share the API's event loop (a Python trainer
// posts from its own process too). It posts over node:http with a keep-alive agent, as a
// requests.Session does: undici's fetch cost about 3.5 ms of CPU a request here.
// argv[2]: JSON { url, token, path, concurrency } and either `bodiesFile` (one JSON body a line, posted
// in order) or `requests` (metric bodies of 1,000 points made here). Replies over IPC with
// { seconds, clientCpu, times (ms per request), replies (parsed JSON) }.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const { url, token, path, bodiesFile, requests, concurrency } = JSON.parse(process.argv[2]);
// bodies ready before the clock starts
const bodies = bodiesFile
  ? readFileSync(bodiesFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => Buffer.from(line))
  : // 1,000 points a request, 50 keys × 20 steps
    Array.from({ length: requests }, (_, r) =>
      Buffer.from(
        JSON.stringify({
          points: Array.from({ length: 1000 }, (_, i) => ({ key: `bench/key_${i % 50}`, step: r * 20 + Math.floor(i / 50), value: i })),
        }),
      ),
    );
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const endpoint = new URL(url + path);
const post = (body) =>
  new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${token}` };
    const req = http.request(endpoint, { method: 'POST', agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode === 200) resolve(JSON.parse(text));
        else reject(new Error(`${path}: ${res.statusCode} ${text}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });

const times = [];
const replies = [];
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const k = next++;
      const t = performance.now();
      replies[k] = await post(bodies[k]);
      times[k] = performance.now() - t;
    }
  }),
);
const cpu = process.cpuUsage(cpu0);
process.send({ seconds: (performance.now() - t0) / 1000, clientCpu: (cpu.user + cpu.system) / 1e6, times, replies });
agent.destroy();
