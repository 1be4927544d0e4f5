'use client';
import { zodResolver } from '@hookform/resolvers/zod';
import { createTokenSchema, type TokenInfo } from '@starpo/contracts';
import { z } from '@starpo/envs/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { CopyField } from '../../../components/CopyField';
import { when } from '../../../components/format';
import { SettingsNav } from '../../../components/SettingsNav';
import { useApi } from '../../../lib/api';
import { errorFor } from '../../../lib/form-errors';
import { requestForm } from '../../../lib/form-schema';
import { useCreateToken, useMe, useRevokeToken, useTokens } from '../../../lib/queries';
import { useAction } from '../../../lib/use-action';
import { useTitle } from '../../../lib/title';

/** The token's name, checked as the request it makes (the field keeps its own name on the page). */
const tokenForm = requestForm(
  z.object({ tokenName: z.string() }),
  (v) => ({ name: v.tokenName }),
  createTokenSchema,
  () => 'tokenName',
);

/** The signed-in user's API tokens: scripts send them as `Authorization: Bearer …` with the user's role. */
export default function TokensPage() {
  const { base } = useApi();
  const me = useMe();
  useTitle('API tokens');
  const tokens = useTokens(!!me);
  const createToken = useCreateToken();
  const revokeToken = useRevokeToken();
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const { error, run } = useAction();
  const { register, watch, reset, handleSubmit, formState } = useForm({
    resolver: zodResolver(tokenForm),
    defaultValues: { tokenName: '' },
  });

  const create = handleSubmit((body) =>
    run(async () => {
      const t = await createToken.mutateAsync(body);
      setSecret({ name: t.name, token: t.token });
      reset();
    }),
  );

  function revoke(t: TokenInfo) {
    if (window.confirm(`Revoke "${t.name}"? Scripts using it stop working at once.`)) void run(() => revokeToken.mutateAsync(t.id));
  }

  return (
    <div>
      <SettingsNav />
      <section className="panel" aria-labelledby="tokens-h">
        <h2 id="tokens-h">API tokens</h2>
        <p className="muted">
          {me ? `Signed in as ${me.user.name} <${me.user.email}>, ${me.role} of ${me.team.name}. ` : null}A token acts as you, with your
          role, for scripts and trainers that post metrics. Every route, with its errors:{' '}
          <a href={`${base}/api/docs`} data-testid="api-docs-link">
            API reference
          </a>{' '}
          (OpenAPI at <a href={`${base}/api/openapi.json`}>/api/openapi.json</a>).
        </p>
        <form className="toolbar" onSubmit={create} data-testid="token-form">
          <label>
            Name
            <input {...register('tokenName')} placeholder="laptop, ci…" required maxLength={100} />
          </label>
          <button type="submit" className="primary" disabled={!watch('tokenName').trim()}>
            Create token
          </button>
        </form>
        {error || formState.errors.tokenName ? (
          <p className="error" role="alert">
            {error || errorFor(formState.errors, 'tokenName')}
          </p>
        ) : null}
        {secret ? (
          <div className="secret" data-testid="token-created">
            <p>
              Copy <b>{secret.name}</b> now: it is shown only once (the server keeps its hash).
            </p>
            <CopyField label="Token" value={secret.token} testId="token-secret" />
            {/* the variables docs/api.md's examples use, so they run as written after these two lines */}
            <pre className="config">{`API=${base}\nTOKEN=${secret.token}\ncurl -s $API/api/runs -H "authorization: Bearer $TOKEN"`}</pre>
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
