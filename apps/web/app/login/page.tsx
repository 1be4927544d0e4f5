'use client';
import { useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useState, type FormEvent } from 'react';
import { errorsByPath, Field } from '../../components/Field';
import { ApiError, useApi } from '../../lib/api';
import { useTitle } from '../../lib/title';

type Mode = 'login' | 'setup' | 'invite';

function LoginForm() {
  const { call, refreshMe } = useApi();
  const router = useRouter();
  const params = useSearchParams();
  const [mode, setMode] = useState<Mode>(params.get('invite') ? 'invite' : 'login');
  const [form, setForm] = useState({
    email: params.get('email') ?? '',
    password: '',
    name: '',
    teamName: '',
    invite: params.get('invite') ?? '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  useTitle(mode === 'setup' ? 'Create your team' : mode === 'invite' ? 'Join with an invite' : 'Sign in');
  useEffect(() => {
    call<{ needsSetup: boolean }>('GET', '/api/auth/setup')
      .then((s) => s.needsSetup && setMode('setup'))
      .catch(() => setMessage('The API is unreachable.'));
  }, [call]);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setMessage('');
    try {
      if (mode === 'login') await call('POST', '/api/auth/login', { email: form.email, password: form.password });
      else
        await call('POST', '/api/auth/signup', {
          email: form.email,
          password: form.password,
          name: form.name,
          ...(mode === 'setup' ? { teamName: form.teamName || undefined } : { invite: form.invite }),
        });
      await refreshMe();
      router.replace(params.get('next') ?? '/');
    } catch (err) {
      const a = err as ApiError;
      setErrors(errorsByPath(a.details));
      setMessage(a.message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="panel narrow" onSubmit={submit} data-testid="login-form">
      <h1>{mode === 'login' ? 'Sign in' : mode === 'setup' ? 'Create your team' : 'Join with an invite'}</h1>
      {mode === 'setup' ? <p className="muted">This deployment has no account yet: the first one creates the team and owns it.</p> : null}
      {mode === 'login' ? (
        <p className="muted" data-testid="access-model">
          The first person to open a new deployment creates its team and owns it. Everyone else joins with an invite link from an owner
          (Settings → Team), then signs in here.
        </p>
      ) : null}
      {mode === 'invite' ? (
        <p className="muted" data-testid="invite-note">
          {params.get('invite') && form.invite === params.get('invite')
            ? 'Your invite is filled in from the link: choose your name and a password.'
            : 'Paste the token of the invite link an owner sent you.'}{' '}
          The invite decides your role and works once.
        </p>
      ) : null}
      {mode !== 'login' ? (
        <Field label="Your name" error={errors.name}>
          <input name="name" value={form.name} onChange={set('name')} autoComplete="name" />
        </Field>
      ) : null}
      <Field label="Email" error={errors.email}>
        <input name="email" type="email" value={form.email} onChange={set('email')} autoComplete="email" />
      </Field>
      <Field label="Password" error={errors.password} hint={mode === 'login' ? undefined : 'at least 8 characters'}>
        <input
          name="password"
          type="password"
          value={form.password}
          onChange={set('password')}
          autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
        />
      </Field>
      {mode === 'setup' ? (
        <Field label="Team name" error={errors.teamName}>
          <input name="teamName" value={form.teamName} onChange={set('teamName')} placeholder="My team" />
        </Field>
      ) : null}
      {mode === 'invite' ? (
        <Field label="Invite token" error={errors.invite}>
          <input name="invite" value={form.invite} onChange={set('invite')} />
        </Field>
      ) : null}
      {message ? (
        <p className="error" role="alert">
          {message}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        {mode === 'login' ? 'Sign in' : 'Create account'}
      </button>
      {mode !== 'setup' ? (
        <p className="muted">
          {mode === 'login' ? (
            <button type="button" className="link" onClick={() => setMode('invite')}>
              I have an invite
            </button>
          ) : (
            <button type="button" className="link" onClick={() => setMode('login')}>
              I have an account
            </button>
          )}
        </p>
      ) : null}
    </form>
  );
}

export default function LoginPage() {
  return (
    <Suspense>
      <LoginForm />
    </Suspense>
  );
}
