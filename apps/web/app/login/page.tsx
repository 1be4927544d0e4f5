'use client';
import { zodResolver } from '@hookform/resolvers/zod';
import { loginSchema, signupSchema } from '@starpo/contracts';
import { z } from '@starpo/envs/zod';
import { useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Field } from '../../components/Field';
import type { ApiError } from '../../lib/api';
import { errorFor, serverErrors } from '../../lib/form-errors';
import { requestForm } from '../../lib/form-schema';
import { useLogin, useSetup, useSignup } from '../../lib/queries';
import { useTitle } from '../../lib/title';

const MODES = ['login', 'setup', 'invite'] as const;
type Mode = (typeof MODES)[number];

/** The request each mode sends, checked by the API's schema: sign in, create the team, or join by invite. */
const REQUESTS = {
  login: loginSchema,
  setup: signupSchema.omit({ invite: true }),
  invite: signupSchema.omit({ teamName: true }).required({ invite: true }),
};

const text = z.string();
const loginForm = requestForm(
  z.object({ mode: z.enum(MODES), name: text, email: text, password: text, teamName: text, invite: text }),
  (v) =>
    v.mode === 'login'
      ? { email: v.email, password: v.password }
      : {
          email: v.email,
          password: v.password,
          name: v.name,
          ...(v.mode === 'setup' ? { teamName: v.teamName || undefined } : { invite: v.invite }),
        },
  (v) => REQUESTS[v.mode],
);

function LoginForm() {
  const router = useRouter();
  const params = useSearchParams();
  const setup = useSetup();
  const login = useLogin();
  const signup = useSignup();
  const [message, setMessage] = useState('');
  const { register, watch, setValue, setError, handleSubmit, formState } = useForm({
    resolver: zodResolver(loginForm),
    defaultValues: {
      mode: (params.get('invite') ? 'invite' : 'login') as Mode,
      email: params.get('email') ?? '',
      password: '',
      name: '',
      teamName: '',
      invite: params.get('invite') ?? '',
    },
  });
  const mode = watch('mode');
  const invite = watch('invite');
  const errors = formState.errors;
  useTitle(mode === 'setup' ? 'Create your team' : mode === 'invite' ? 'Join with an invite' : 'Sign in');
  useEffect(() => {
    if (setup.data?.needsSetup) setValue('mode', 'setup');
  }, [setup.data, setValue]);

  const submit = handleSubmit(async (body) => {
    setMessage('');
    try {
      if (mode === 'login') await login.mutateAsync(body as z.output<typeof loginSchema>);
      else await signup.mutateAsync(body as z.output<typeof signupSchema>);
      router.replace(params.get('next') ?? '/');
    } catch (err) {
      const a = err as ApiError;
      serverErrors(a.details, setError);
      setMessage(a.message);
    }
  });
  const shownMessage = message || (setup.error ? 'The API is unreachable.' : '');

  return (
    <form className="panel narrow" onSubmit={submit} data-testid="login-form" noValidate>
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
          {params.get('invite') && invite === params.get('invite')
            ? 'Your invite is filled in from the link: choose your name and a password.'
            : 'Paste the token of the invite link an owner sent you.'}{' '}
          The invite decides your role and works once.
        </p>
      ) : null}
      {mode !== 'login' ? (
        <Field label="Your name" error={errorFor(errors, 'name')}>
          <input {...register('name')} autoComplete="name" />
        </Field>
      ) : null}
      <Field label="Email" error={errorFor(errors, 'email')}>
        <input {...register('email')} type="email" autoComplete="email" />
      </Field>
      <Field label="Password" error={errorFor(errors, 'password')} hint={mode === 'login' ? undefined : 'at least 8 characters'}>
        <input {...register('password')} type="password" autoComplete={mode === 'login' ? 'current-password' : 'new-password'} />
      </Field>
      {mode === 'setup' ? (
        <Field label="Team name" error={errorFor(errors, 'teamName')}>
          <input {...register('teamName')} placeholder="My team" />
        </Field>
      ) : null}
      {mode === 'invite' ? (
        <Field label="Invite token" error={errorFor(errors, 'invite')}>
          <input {...register('invite')} />
        </Field>
      ) : null}
      {shownMessage ? (
        <p className="error" role="alert">
          {shownMessage}
        </p>
      ) : null}
      <button type="submit" disabled={formState.isSubmitting}>
        {mode === 'login' ? 'Sign in' : 'Create account'}
      </button>
      {mode !== 'setup' ? (
        <p className="muted">
          {mode === 'login' ? (
            <button type="button" className="link" onClick={() => setValue('mode', 'invite')}>
              I have an invite
            </button>
          ) : (
            <button type="button" className="link" onClick={() => setValue('mode', 'login')}>
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
