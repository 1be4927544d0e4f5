import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

// Costly previews (16×16 rooms, 4 boxes, the largest search the schema admits), each seed new.
const HEAVY_CONFIG = encodeURIComponent(JSON.stringify({ rows: 16, cols: 16, numBoxes: 4, searchDepth: 1000, maxExploredStates: 15_625 }));

describe('1,000 unauthenticated heavy previews, 50 at a time', () => {
  let t: TestApi;
  let base: string;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApi();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    owner = await signupOwner(t);
    await fetch(`${base}/api/runs`, { headers: { authorization: owner.auth } }); // warm
  });
  afterAll(() => t.close());

  it('/health and an authenticated request keep answering; the flood gets 429s in the error shape', async () => {
    // the flood comes from another process, as an attacker's would: this one only probes
    const flooder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const statuses = {}; let next = 0;
         const one = async () => { while (next < 1000) { const seed = next++;
           const res = await fetch(process.argv[1] + '/api/envs/sokoban/preview?seed=' + seed + '&config=' + process.argv[2]);
           const body = await res.json();
           if (res.status === 429 && Object.keys(body).sort().join() !== 'details,error,message') throw new Error('429 without the error shape');
           statuses[res.status] = (statuses[res.status] ?? 0) + 1; } };
         await Promise.all(Array.from({ length: 50 }, one));
         console.log(JSON.stringify(statuses));`,
        base,
        HEAVY_CONFIG,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    flooder.stdout.on('data', (d) => (out += d));
    const flooded = new Promise<number | null>((resolve) => flooder.once('exit', resolve));
    let flooding = true;
    void flooded.then(() => (flooding = false));
    const took: Record<'health' | 'runs', number[]> = { health: [], runs: [] };
    const probe = async () => {
      while (flooding) {
        for (const [key, path, headers] of [
          ['health', '/health', {}],
          ['runs', '/api/runs', { authorization: owner.auth }],
        ] as const) {
          const started = performance.now();
          const res = await fetch(base + path, { headers });
          expect(res.status).toBe(200);
          took[key].push(performance.now() - started);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const probing = probe();
    expect(await flooded).toBe(0);
    await probing;
    const statuses = JSON.parse(out) as Record<string, number>;
    const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
    const summary = (k: 'health' | 'runs') => `p95 ${p95(took[k]).toFixed(0)} ms, max ${Math.max(...took[k]).toFixed(0)} ms`;
    console.log(`statuses ${out.trim()}; /health ${summary('health')}; /api/runs ${summary('runs')} (${took.health.length} probes each)`);
    expect(statuses['429']).toBeGreaterThan(800);
    expect(Object.keys(statuses).every((s) => ['200', '422', '429'].includes(s))).toBe(true);
    expect(took.health.length).toBeGreaterThan(5);
    // What this asserts is that nothing stalls the event loop: one heavy preview used to hold every request
    // for 49 s. The 200 ms latency goal is a timing, measured and printed above (p95 175–229 ms on a shared
    // 2-core machine, docs/results/reliability.md), not asserted tightly: other work on the machine moves it.
    for (const k of ['health', 'runs'] as const) {
      expect(p95(took[k])).toBeLessThan(1_000);
      expect(Math.max(...took[k])).toBeLessThan(3_000);
    }
  }, 120_000);
});
