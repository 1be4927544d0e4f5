'use client';
import type { CreatedToken, TokenInfo } from '@starpo/contracts';
import { useState, type FormEvent } from 'react';
import { CopyField } from '../../../components/CopyField';
import { when } from '../../../components/format';
import { SettingsNav } from '../../../components/SettingsNav';
import { useApi, useGet } from '../../../lib/api';
import { useAction } from '../../../lib/use-action';
import { useTitle } from '../../../lib/title';

/** The signed-in user's API tokens: scripts send them as `Authorization: Bearer …` with the user's role. */
export default function TokensPage() {
  const { me, call, base } = useApi();
  useTitle('API tokens');
  const tokens = useGet<TokenInfo[]>(me ? '/api/tokens' : null);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const { error, run } = useAction();

  function create(e: FormEvent) {
    e.preventDefault();
    void run(async () => {
      const t = await call<CreatedToken>('POST', '/api/tokens', { name });
      setSecret({ name: t.name, token: t.token });
      setName('');
    }, tokens.reload);
  }

  function revoke(t: TokenInfo) {
    if (window.confirm(`Revoke "${t.name}"? Scripts using it stop working at once.`))
      void run(() => call('DELETE', `/api/tokens/${t.id}`), tokens.reload);
  }

  return (
    <div>
      <SettingsNav />
      <section className="panel" aria-labelledby="tokens-h">
        <h2 id="tokens-h">API tokens</h2>
        <p className="muted">
          {me ? `Signed in as ${me.user.name} <${me.user.email}>, ${me.role} of ${me.team.name}. ` : null}A token acts as you, with your
          role, for scripts and trainers that post metrics.
        </p>
        <form className="toolbar" onSubmit={create} data-testid="token-form">
          <label>
            Name
            <input
              name="tokenName"
              value={name}
              placeholder="laptop, ci…"
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={100}
            />
          </label>
          <button type="submit" className="primary" disabled={!name.trim()}>
            Create token
          </button>
        </form>
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : null}
        {secret ? (
          <div className="secret" data-testid="token-created">
            <p>
              Copy <b>{secret.name}</b> now: it is shown only once (the server keeps its hash).
            </p>
            <CopyField label="Token" value={secret.token} testId="token-secret" />
            <pre className="config">{`curl -H "Authorization: Bearer ${secret.token}" ${base}/api/runs`}</pre>
          </div>
        ) : null}
        {tokens.error ? <p className="error">{tokens.error.message}</p> : null}
        {tokens.data && !tokens.data.length ? <p className="muted">No tokens yet.</p> : null}
        {tokens.data?.length ? (
          <div className="table-scroll">
            <table data-testid="tokens">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Starts with</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.map((t) => (
                  <tr key={t.id} data-testid="token-row">
                    <td>{t.name}</td>
                    <td>
                      <code>{t.prefix}…</code>
                    </td>
                    <td>{when(t.createdAt)}</td>
                    <td data-testid="token-last-used">{t.lastUsedAt ? when(t.lastUsedAt) : 'never'}</td>
                    <td>
                      {t.revokedAt ? (
                        <span className="muted" data-testid="token-state">
                          revoked {when(t.revokedAt)}
                        </span>
                      ) : (
                        <button className="danger" onClick={() => void revoke(t)} aria-label={`revoke ${t.name}`}>
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </div>
  );
}
