'use client';
import { defaultArchiveStep } from '@starpo/contracts';
import { useCheckpoints } from '../lib/queries';
import { when } from './format';

/** A run's saved checkpoint files, each a download link, and the latest complete step as one archive. */
export function CheckpointsTab({ runId, base }: { runId: string; base: string }) {
  const { data, error } = useCheckpoints(runId);
  if (error) return <p className="error">{error.message}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  if (!data.length) return <div className="panel empty">No checkpoints yet.</div>;
  const step = defaultArchiveStep(data);
  return (
    <>
      <p>
        <a className="button primary" href={`${base}/api/runs/${runId}/checkpoints/archive`} data-testid="download-latest" download>
          Download the latest checkpoint (step {step})
        </a>{' '}
        <span className="muted">all its files in one .tar with SHA256SUMS, streamed; each file is listed below</span>
      </p>
      <table>
        <thead>
          <tr>
            <th>Step</th>
            <th>File</th>
            <th>Size</th>
            <th>sha256</th>
            <th>Saved</th>
          </tr>
        </thead>
        <tbody>
          {data.map((c) => (
            <tr key={c.id}>
              <td>{c.step}</td>
              <td>
                <a href={`${base}/api/checkpoints/${c.id}/download`}>{c.kind}</a>
              </td>
              <td>{(c.sizeBytes / 1024).toFixed(1)} KiB</td>
              <td>
                <code>{c.sha256.slice(0, 12)}…</code>
              </td>
              <td>{when(c.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
