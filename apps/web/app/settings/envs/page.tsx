'use client';
import { zodResolver } from '@hookform/resolvers/zod';
import { registerEnvSchema, type EnvInfo } from '@starpo/contracts';
import { z } from '@starpo/envs/zod';
import { useForm } from 'react-hook-form';
import { when } from '../../../components/format';
import { Field } from '../../../components/Field';
import { SettingsNav } from '../../../components/SettingsNav';
import type { ApiError } from '../../../lib/api';
import { errorFor, serverErrors } from '../../../lib/form-errors';
import { requestForm } from '../../../lib/form-schema';
import { useDeleteEnv, useEnvs, useMe, useRegisterEnv } from '../../../lib/queries';
import { denied } from '../../../lib/roles';
import { useAction } from '../../../lib/use-action';
import { useTitle } from '../../../lib/title';

/** The form as typed: a command is its words split at spaces. */
const envForm = requestForm(
  z.object({ name: z.string(), kind: z.enum(['url', 'command']), url: z.string(), command: z.string(), cwd: z.string() }),
  (v) =>
    v.kind === 'url'
      ? { name: v.name.trim(), url: v.url.trim() }
      : { name: v.name.trim(), command: v.command.split(/\s+/).filter(Boolean), ...(v.cwd.trim() ? { cwd: v.cwd.trim() } : {}) },
  registerEnvSchema,
);

/** The team's environments served through the protocol: register one, see whether a worker could describe it, remove it. */
export default function EnvSettingsPage() {
  const me = useMe();
  useTitle('Environments');
  const registered = (useEnvs(true).data ?? []).filter((e) => e.source === 'registered');
  const registerEnv = useRegisterEnv();
  const deleteEnv = useDeleteEnv();
  const refusal = denied(me, 'registerEnv');
  const { error, run } = useAction();
  const { register, handleSubmit, watch, reset, setError, formState } = useForm({
    resolver: zodResolver(envForm),
    defaultValues: { name: '', kind: 'url' as 'url' | 'command', url: '', command: '', cwd: '' },
  });
  const kind = watch('kind');
  const submit = handleSubmit((body) =>
    run(async () => {
      try {
        await registerEnv.mutateAsync(body);
        reset();
      } catch (e) {
        // a field's error at the field (a cwd outside ENV_ROOTS); any other under the form
        if (!(e as ApiError).details?.length) throw e;
        serverErrors((e as ApiError).details, setError);
      }
    }),
  );
  const fieldError = (name: string) => errorFor(formState.errors, name);

  return (
    <div>
      <SettingsNav />
      <section className="panel" aria-labelledby="envs-h">
        <h2 id="envs-h">Registered environments</h2>
        <p className="muted">
          An environment in any language, served through the environment protocol (docs/environments.md). A worker fetches its description;
          once it is ready, runs choose it in New run like a built-in one.
        </p>
        {error ? (
          <p className="error" role="alert" data-testid="envs-error">
            {error}
          </p>
        ) : null}
        {registered.length ? (
          <EnvTable envs={registered} remove={refusal ? null : (name) => run(() => deleteEnv.mutateAsync(name))} />
        ) : null}
        {!registered.length ? <p className="muted">No registered environments yet.</p> : null}
      </section>
      {refusal ? (
        <p className="muted">Members and owners register environments; you are {me?.role}.</p>
      ) : (
        <form className="panel" onSubmit={submit} data-testid="env-form" noValidate>
          <h2>Register an environment</h2>
          <Field label="Name" error={fieldError('name')} hint="what runs call it (env.name): lowercase letters, digits and dashes">
            <input {...register('name')} />
          </Field>
          <Field label="Served" error={undefined}>
            <select {...register('kind')}>
              <option value="url">at a URL</option>
              <option value="command">by a command a worker starts</option>
            </select>
          </Field>
          {kind === 'url' ? (
            <Field label="URL" error={fieldError('url')} hint="reached by workers only, never by the API">
              <input {...register('url')} placeholder="http://127.0.0.1:8765" />
            </Field>
          ) : (
            <>
              <Field label="Command" error={fieldError('command') ?? fieldError('url')} hint="program and arguments, split at spaces">
                <input {...register('command')} placeholder="python3 -m examples.frozenlake_server" />
              </Field>
              <Field label="Folder" error={fieldError('cwd')} hint="absolute, under the deployment's ENV_ROOTS">
                <input {...register('cwd')} placeholder="/srv/envs/lake" />
              </Field>
            </>
          )}
          <button type="submit" className="primary">
            Register
          </button>
        </form>
      )}
    </div>
  );
}

function EnvTable({ envs, remove }: { envs: EnvInfo[]; remove: ((name: string) => void) | null }) {
  return (
    <div className="table-scroll">
      <table data-testid="envs">
        <thead>
          <tr>
            <th>Name</th>
            <th>Served</th>
            <th>Status</th>
            <th>Registered</th>
            {remove ? <th aria-label="actions" /> : null}
          </tr>
        </thead>
        <tbody>
          {envs.map((e) => {
            const r = e.registration!;
            return (
              <tr key={e.name} data-testid="env-row">
                <td>
                  {e.name}
                  {r.status === 'ready' && e.title !== e.name ? <span className="muted"> · {e.title}</span> : null}
                </td>
                <td>
                  <code>{r.endpoint.url ?? `${r.endpoint.command?.join(' ')} (in ${r.endpoint.cwd})`}</code>
                </td>
                <td data-testid="env-status">
                  {r.status === 'failed' ? <span className="bad">failed: {r.error}</span> : r.status}
                  {r.status === 'pending' ? <span className="muted"> (waiting for a worker)</span> : null}
                </td>
                <td>{when(r.createdAt)}</td>
                {remove ? (
                  <td>
                    <button className="danger" onClick={() => remove(e.name)}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
