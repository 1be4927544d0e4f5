'use client';
import { buildRunConfig, configDiff, PRESETS } from '@starpo/contracts';
import { useMemo } from 'react';

/** An external run's config exactly as its trainer sent it (no defaults, nothing to compare against). */
export function SentConfig({ config }: { config: Record<string, unknown> }) {
  return (
    <div className="panel">
      <h3>Config sent by the trainer</h3>
      <pre className="config" data-testid="sent-config">
        {JSON.stringify(config, null, 2)}
      </pre>
    </div>
  );
}

/** The run's config, with what differs from its preset (or the defaults). */
export function ConfigTab({ config, preset }: { config: Record<string, unknown>; preset: string | null }) {
  const diff = useMemo(() => {
    try {
      return configDiff(config, buildRunConfig(preset && preset in PRESETS ? preset : undefined, { env: config.env as never }));
    } catch {
      return [];
    }
  }, [config, preset]);
  return (
    <div className="row">
      <div className="panel">
        <h3>Differences from {preset ?? 'the defaults'}</h3>
        {diff.length ? (
          <table>
            <tbody>
              {diff.map((d) => (
                <tr key={d.path}>
                  <td>
                    <code>{d.path}</code>
                  </td>
                  <td>{JSON.stringify(d.value)}</td>
                  <td className="muted">{JSON.stringify(d.reference)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">none</p>
        )}
      </div>
      <pre className="panel config grow">{JSON.stringify(config, null, 2)}</pre>
    </div>
  );
}
