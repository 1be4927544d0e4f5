'use client';
import { zodResolver } from '@hookform/resolvers/zod';
import { createInviteSchema, ROLES, type RoleName, type TeamMember } from '@starpo/contracts';
import { z } from '@starpo/envs/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { CopyField } from '../../components/CopyField';
import { when } from '../../components/format';
import { SettingsNav } from '../../components/SettingsNav';
import { errorFor } from '../../lib/form-errors';
import { requestForm } from '../../lib/form-schema';
import { useCreateInvite, useInvites, useMe, useMembers, useRevokeInvite, useSetMemberRole } from '../../lib/queries';
import { denied } from '../../lib/roles';
import { useAction } from '../../lib/use-action';
import { useTitle } from '../../lib/title';

const EXPIRY = [
  { hours: 24, label: '1 day' },
  { hours: 168, label: '7 days' },
  { hours: 720, label: '30 days' },
];

/** The invite form's fields (select values are strings), checked as the request they make. */
const inviteForm = requestForm(
  z.object({ role: z.enum(ROLES), email: z.string(), hours: z.string() }),
  (v) => ({ role: v.role, expiresInHours: Number(v.hours), ...(v.email.trim() ? { email: v.email.trim() } : {}) }),
  createInviteSchema,
  (path) => (path === 'expiresInHours' ? 'hours' : path.split('.')[0]!),
);

/** The team: who is in it with which role, and (for owners) role changes and invite links. */
export default function TeamSettingsPage() {
  const me = useMe();
  useTitle('Team settings');
  const members = useMembers(!!me);
  const setMemberRole = useSetMemberRole();
  const ownerReason = denied(me, 'manageTeam');
  const { error, run } = useAction();

  const setRole = (m: TeamMember, role: RoleName) =>
    run(() => setMemberRole.mutateAsync({ userId: m.userId, role, self: m.userId === me?.user.id }));

  return (
    <div>
      <SettingsNav />
      <section className="panel" aria-labelledby="members-h">
        <h2 id="members-h">{me ? `${me.team.name}: members` : 'Members'}</h2>
        {ownerReason ? <p className="muted">Only owners change roles and invite people; you are {me?.role}.</p> : null}
        {error ? (
          <p className="error" role="alert" data-testid="members-error">
            {error}
          </p>
        ) : null}
        {members.error ? <p className="error">{members.error.message}</p> : null}
        <div className="table-scroll">
          <table data-testid="members">
            <thead>
              <tr>
                <th>Name</th>
                <th>Email</th>
                <th>Role</th>
                <th>Joined</th>
              </tr>
            </thead>
            <tbody>
              {(members.data ?? []).map((m) => (
                <tr key={m.userId} data-testid="member-row">
                  <td>
                    {m.name}
                    {m.userId === me?.user.id ? <span className="muted"> (you)</span> : null}
                  </td>
                  <td>{m.email}</td>
                  <td>
                    {ownerReason ? (
                      <span data-testid="member-role">{m.role}</span>
                    ) : (
                      <select
                        aria-label={`role of ${m.email}`}
                        value={m.role}
                        onChange={(e) => void setRole(m, e.target.value as RoleName)}
                      >
                        {ROLES.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                    )}
                  </td>
                  <td>{when(m.joinedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="muted">
          Owners manage members and invites and may edit, cancel, resume and delete any run; members launch runs and edit, cancel, resume
          and delete their own; viewers read.
        </p>
      </section>
      {ownerReason ? null : <Invites />}
    </div>
  );
}

function Invites() {
  const invites = useInvites();
  const createInvite = useCreateInvite();
  const revokeInvite = useRevokeInvite();
  const [created, setCreated] = useState<{ link: string; role: RoleName; expiresAt: string } | null>(null);
  const { error, run } = useAction();
  const { register, setValue, handleSubmit, formState } = useForm({
    resolver: zodResolver(inviteForm),
    defaultValues: { role: 'member' as RoleName, email: '', hours: '168' },
  });

  const create = handleSubmit((body) =>
    run(async () => {
      const inv = await createInvite.mutateAsync(body);
      // the join form fills in the invited address from the link
      const link = `${window.location.origin}/login?invite=${encodeURIComponent(inv.token)}${body.email ? `&email=${encodeURIComponent(body.email)}` : ''}`;
      setCreated({ link, role: inv.role, expiresAt: inv.expiresAt });
      setValue('email', ''); // the next invite is for someone else
    }),
  );

  const revoke = (id: string) => run(() => revokeInvite.mutateAsync(id));

  return (
    <section className="panel" aria-labelledby="invites-h">
      <h2 id="invites-h">Invites</h2>
      <form className="toolbar" onSubmit={create} data-testid="invite-form">
        <label>
          Role
          <select {...register('role')}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Email (optional)
          <input {...register('email')} type="email" placeholder="anyone with the link" />
        </label>
        <label>
          Expires in
          <select {...register('hours')}>
            {EXPIRY.map((x) => (
              <option key={x.hours} value={x.hours}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Create invite link
        </button>
      </form>
      {error || formState.errors.email ? (
        <p className="error" role="alert">
          {error || `Email: ${errorFor(formState.errors, 'email')}`}
        </p>
      ) : null}
      {created ? (
        <div className="secret" data-testid="invite-created">
          <p>
            Send this link to the new {created.role}. It works once, until {when(created.expiresAt)}, and is shown only now.
          </p>
          <CopyField label="Invite link" value={created.link} testId="invite-link" />
        </div>
      ) : null}
      <h3>Pending</h3>
      {invites.data && !invites.data.length ? <p className="muted">No pending invites.</p> : null}
      {invites.data?.length ? (
        <div className="table-scroll">
          <table data-testid="invites">
            <thead>
              <tr>
                <th>Role</th>
                <th>For</th>
                <th>Created</th>
                <th>Expires</th>
                <th aria-label="actions" />
              </tr>
            </thead>
            <tbody>
              {invites.data.map((i) => (
                <tr key={i.id} data-testid="invite-row">
                  <td>{i.role}</td>
                  <td>{i.email ?? <span className="muted">anyone with the link</span>}</td>
                  <td>{when(i.createdAt)}</td>
                  <td>{i.expired ? <span className="bad">expired {when(i.expiresAt)}</span> : when(i.expiresAt)}</td>
                  <td>
                    <button className="danger" onClick={() => void revoke(i.id)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
