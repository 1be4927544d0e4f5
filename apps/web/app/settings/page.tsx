'use client';
import { ROLES, type CreatedInvite, type InviteInfo, type RoleName, type TeamMember } from '@starpo/contracts';
import { useState, type FormEvent } from 'react';
import { CopyField } from '../../components/CopyField';
import { when } from '../../components/format';
import { SettingsNav } from '../../components/SettingsNav';
import { useApi, useGet } from '../../lib/api';
import { denied } from '../../lib/roles';
import { useAction } from '../../lib/use-action';
import { useTitle } from '../../lib/title';

const EXPIRY = [
  { hours: 24, label: '1 day' },
  { hours: 168, label: '7 days' },
  { hours: 720, label: '30 days' },
];

/** The team: who is in it with which role, and (for owners) role changes and invite links. */
export default function TeamSettingsPage() {
  const { me, call, refreshMe } = useApi();
  useTitle('Team settings');
  const members = useGet<TeamMember[]>(me ? '/api/team/members' : null);
  const ownerReason = denied(me, 'manageTeam');
  const { error, run } = useAction();

  const setRole = (m: TeamMember, role: RoleName) =>
    run(async () => {
      await call('PATCH', `/api/team/members/${m.userId}`, { role });
      if (m.userId === me?.user.id) await refreshMe();
    }, members.reload);

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
  const { call } = useApi();
  const invites = useGet<InviteInfo[]>('/api/team/invites');
  const [form, setForm] = useState({ role: 'member' as RoleName, email: '', hours: 168 });
  const [created, setCreated] = useState<{ link: string; role: RoleName; expiresAt: string } | null>(null);
  const { error, run } = useAction();

  function create(e: FormEvent) {
    e.preventDefault();
    void run(async () => {
      const inv = await call<CreatedInvite>('POST', '/api/team/invites', {
        role: form.role,
        expiresInHours: form.hours,
        ...(form.email.trim() ? { email: form.email.trim() } : {}),
      });
      const email = form.email.trim();
      // the join form fills in the invited address from the link
      const link = `${window.location.origin}/login?invite=${encodeURIComponent(inv.token)}${email ? `&email=${encodeURIComponent(email)}` : ''}`;
      setCreated({ link, role: inv.role, expiresAt: inv.expiresAt });
      setForm((f) => ({ ...f, email: '' })); // the next invite is for someone else
    }, invites.reload);
  }

  const revoke = (id: string) => run(() => call('DELETE', `/api/team/invites/${id}`), invites.reload);

  return (
    <section className="panel" aria-labelledby="invites-h">
      <h2 id="invites-h">Invites</h2>
      <form className="toolbar" onSubmit={create} data-testid="invite-form">
        <label>
          Role
          <select name="role" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as RoleName })}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Email (optional)
          <input
            name="email"
            type="email"
            value={form.email}
            placeholder="anyone with the link"
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        </label>
        <label>
          Expires in
          <select name="hours" value={form.hours} onChange={(e) => setForm({ ...form, hours: Number(e.target.value) })}>
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
      {error ? (
        <p className="error" role="alert">
          {error}
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
