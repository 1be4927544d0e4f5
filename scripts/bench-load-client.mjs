// The load side of bench:load, in a process of its own so that the clients' HTTP work does not share
// the API's event loop. argv[2]: JSON { url, headers, connections, seconds, revalidate }. Every
// connection sends its next GET as soon as the last one answers (autocannon); with `revalidate`, a
// client sends the ETag of its last 200 as If-None-Match, as a browser revalidating its cache does.
// Replies over IPC with { requests, seconds, latencies (ms, each answer), status counts, errors, cpu
// (this process's CPU seconds: the load generator shares the machine's cores with the API) }.
import autocannon from 'autocannon';

const { url, headers, connections, seconds, revalidate } = JSON.parse(process.argv[2]);
const latencies = [];
const cpu0 = process.cpuUsage();
const status = {};
let etag = null;
const instance = autocannon({
  url,
  connections,
  duration: seconds,
  headers,
  // autocannon's own percentiles stop at p90/p97.5: every answer's time is kept here for p95
  setupClient: (client) => {
    if (!revalidate) return;
    client.on('headers', (h) => {
      for (let i = 0; i < h.headers.length; i += 2) if (String(h.headers[i]).toLowerCase() === 'etag') etag = String(h.headers[i + 1]);
      if (etag) client.setHeaders({ ...headers, 'if-none-match': etag });
    });
  },
});
instance.on('response', (_client, statusCode, _bytes, ms) => {
  latencies.push(ms);
  status[statusCode] = (status[statusCode] ?? 0) + 1;
});
const result = await new Promise((resolve, reject) => instance.once('done', resolve).once('error', reject));
const cpu = process.cpuUsage(cpu0);
process.send({
  cpu: (cpu.user + cpu.system) / 1e6,
  requests: latencies.length,
  seconds: result.duration,
  latencies,
  status,
  errors: result.errors,
  timeouts: result.timeouts,
});
