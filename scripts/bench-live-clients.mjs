// bench:api's live clients, in a process of their own so that decoding N sockets' events does not
// share the API's event loop. Started with IPC by bench-api.mjs: connects `clients` socket.io clients,
// subscribes each to the run, says 'ready', then records each metrics event's arrival (absolute ms,
// comparable across processes) until told 'done', and answers with the arrivals by step.
import { performance } from 'node:perf_hooks';
import { io } from 'socket.io-client';

const { url, token, runId, clients } = JSON.parse(process.argv[2]);
const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map(); // step → arrival times
const sockets = [];
// connect in waves: a thousand handshakes at once would time out on a loaded machine
for (let i = 0; i < clients; i += 50) {
  const wave = await Promise.all(
    Array.from({ length: Math.min(50, clients - i) }, async () => {
      const s = io(url, { auth: { token }, transports: ['websocket'], reconnection: false, timeout: 60_000 });
      await new Promise((r, j) => (s.once('connect', r), s.once('connect_error', j)));
      const ack = await s.timeout(60_000).emitWithAck('subscribe', { runId });
      if (!ack.ok) throw new Error(`subscribe: ${ack.message}`);
      s.on('metrics', (e) => {
        const t = now();
        (arrivals.get(e.step) ?? arrivals.set(e.step, []).get(e.step)).push(t);
      });
      return s;
    }),
  );
  sockets.push(...wave);
}
process.send({ type: 'ready' });
process.on('message', (m) => {
  if (m.type !== 'done') return;
  for (const s of sockets) s.disconnect();
  process.send({ type: 'arrivals', arrivals: Object.fromEntries(arrivals) }, () => process.exit(0));
});
