'use client';
import { ENGINE_LABELS, FAST_ENGINE_FIX, type WorkerInfo } from '@starpo/contracts';
import { when } from '../../components/format';
import { useWorkers } from '../../lib/queries';
import { useTitle } from '../../lib/title';

export default function WorkersPage() {
  const { data, error } = useWorkers(); // polled: heartbeats and current runs change
  useTitle('Workers');
  if (error) return <p className="error">{error.message}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  // the API's word: `lost` once its heartbeat is older than the deployment's WORKER_STALE_MS
  const online = (w: WorkerInfo) => w.status === 'idle' || w.status === 'busy';
  return (
    <div>
      <h1>Workers</h1>
      {!data.length ? (
        <div className="panel empty">
          No worker has registered. Start one with <code>DATABASE_URL=… node apps/worker/dist/main.js</code>.
        </div>
      ) : (
        <table data-testid="workers-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Online</th>
              <th>Status</th>
              <th>Backend</th>
              <th>Engine</th>
              <th>Device</th>
              <th>Current run</th>
              <th>Last heartbeat</th>
            </tr>
          </thead>
          <tbody>
            {data.map((w) => (
              <tr key={w.id}>
                <td>
                  {w.name} <span className="muted">({w.host})</span>
                </td>
                <td className={online(w) ? 'ok' : 'bad'}>{online(w) ? 'online' : 'offline'}</td>
                <td>{w.status}</td>
                <td>{w.backend}</td>
                <td data-testid="worker-engine">
                  {w.slowEngine ? (
                    <>
                      <span className="badge warn" title={`training steps run several times slower; fix: ${FAST_ENGINE_FIX}`}>
                        slow engine
                      </span>{' '}
                    </>
                  ) : null}
                  {ENGINE_LABELS[w.engine]}
                </td>
                <td>
                  {w.device}
                  {w.hasGpu ? ' · GPU' : ''}
                </td>
                <td>
                  {w.currentRun ? w.currentRun.id ? <a href={`/runs/${w.currentRun.id}`}>{w.currentRun.name}</a> : w.currentRun.name : '—'}
                </td>
                <td>{when(w.lastHeartbeat)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data.some((w) => w.slowEngine && online(w)) ? (
        <p className="warn-text" data-testid="slow-engine-hint">
          A worker marked <b>slow engine</b> trains on tfjs's own kernels: its OpenBLAS addon is not built (no <code>libopenblas-dev</code>{' '}
          when it was built), and a training step takes several times longer. Fix: {FAST_ENGINE_FIX}.
        </p>
      ) : null}
    </div>
  );
}
