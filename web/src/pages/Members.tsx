/**
 * Members: the people who sign in to this account, each with a role and, optionally, only some domains.
 * Owners and admins invite (the invitation link is shown once), change roles and domains, and remove members;
 * everyone else sees the list, and the server refuses what their role does not allow.
 */
import { useState } from 'react';
import { api, ROLES, type Domain, type Member, type NewMember, type Role } from '../api';
import { useLoad, useRowActions, useSubmit } from '../hooks';
import { ColumnHeads, ConfirmButton, CopyOrHide, ErrorSummary, Field, when } from '../ui';
import { DomainChoices } from './CreateApiKey';

const ROLE_TEXT: Record<Role, string> = {
  owner: 'owner: everything, members included',
  admin: 'admin: everything but changing or removing owners',
  editor: 'editor: domains, records, DNSSEC, their own keys',
  viewer: 'viewer: reads only',
};

/** Where an invited member sets a password: this panel, signed out. */
const invitationLink = (token: string) => `${window.location.origin}${window.location.pathname}#/invitation/${encodeURIComponent(token)}`;

/** The role and domains of a member, as the invite and change forms edit them. */
function RightsFields({ role, domains, zones, onRole, onDomains, byField }: {
  role: Role;
  domains: Set<number>;
  zones: Domain[] | null;
  onRole: (r: Role) => void;
  onDomains: (d: Set<number>) => void;
  byField: Record<string, string[]>;
}) {
  return (
    <>
      <Field label="Role" errors={byField.role}>
        {(p) => (
          <select {...p} name="role" value={role} onChange={(e) => onRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_TEXT[r]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <DomainChoices zones={zones} chosen={domains} onChange={onDomains} errors={byField.domains ?? []} legend="Domains the member may act on (none chosen: all, also later ones)" />
    </>
  );
}

const domainsBody = (chosen: Set<number>) => (chosen.size ? [...chosen].sort((a, b) => a - b) : null);

function InviteMember({ zones, onInvited }: { zones: Domain[] | null; onInvited: (m: NewMember) => void }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [domains, setDomains] = useState<Set<number>>(new Set());
  const form = useSubmit<NewMember>(['username', 'role', 'domains'], (m) => {
    setUsername('');
    setDomains(new Set());
    onInvited(m);
  });
  const submit = form.submitWith(() => {
    const chosen = domainsBody(domains);
    return api.post<NewMember>('/v1/members', { username: username.trim(), role, ...(chosen ? { domains: chosen } : {}) });
  });
  return (
    <form onSubmit={submit} noValidate aria-label="Invite a member" className="grid-form">
      <ErrorSummary messages={form.general} />
      <Field label="User name" errors={form.byField.username} required hint="The name they will sign in with, unique in the whole service">
        {(p) => <input {...p} name="username" value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />}
      </Field>
      <RightsFields role={role} domains={domains} zones={zones} onRole={setRole} onDomains={setDomains} byField={form.byField} />
      <div className="actions">
        <button type="submit" className="primary" disabled={form.busy}>
          Invite
        </button>
      </div>
    </form>
  );
}

function ChangeMember({ member, zones, onDone }: { member: Member; zones: Domain[] | null; onDone: () => void }) {
  const [role, setRole] = useState<Role>(member.role);
  const [domains, setDomains] = useState<Set<number>>(new Set(member.domains ?? []));
  const form = useSubmit<Member>(['role', 'domains'], onDone);
  const submit = form.submitWith(() => api.patch<Member>(`/v1/members/${member.id}`, { role, domains: domainsBody(domains) }));
  return (
    <form onSubmit={submit} noValidate aria-label={`Change ${member.username}`} className="grid-form">
      <h2>Change {member.username}</h2>
      <ErrorSummary messages={form.general} />
      <RightsFields role={role} domains={domains} zones={zones} onRole={setRole} onDomains={setDomains} byField={form.byField} />
      <div className="actions">
        <button type="submit" className="primary" disabled={form.busy}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function MemberTable({ members, zoneName, onChange, onRemove }: { members: Member[]; zoneName: (id: number) => string; onChange: (m: Member) => void; onRemove: (m: Member) => Promise<void> }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Members of this account</caption>
        <ColumnHeads labels={['User name', 'Role', 'Domains', 'Since', 'Invitation']} actions />
        <tbody>
          {members.map((m) => (
            <tr key={m.id}>
              <th scope="row">{m.username}</th>
              <td>{m.role}</td>
              <td>{m.domains ? m.domains.map(zoneName).join(', ') : 'all'}</td>
              <td>{when(m.created)}</td>
              <td>{m.invitation_expires ? `pending until ${when(m.invitation_expires)}` : 'accepted'}</td>
              <td className="row-actions">
                <button type="button" aria-label={`Change ${m.username}`} onClick={() => onChange(m)}>
                  Change
                </button>
                <ConfirmButton
                  label="Remove"
                  ariaLabel={`Remove ${m.username}`}
                  question={`Remove ${m.username}? Their API keys and TSIG keys stop working at once.`}
                  confirmLabel="Yes, remove"
                  onConfirm={() => onRemove(m)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Members() {
  const { data, error, reload } = useLoad(() => api.get<Member[]>('/v1/members'), []);
  const zones = useLoad(() => api.all<Domain>('/v1/domains?limit=500'), []);
  const [invited, setInvited] = useState<NewMember | null>(null);
  const [changing, setChanging] = useState<Member | null>(null);
  const rows = useRowActions(reload);
  const zoneName = (id: number) => zones.data?.find((z) => z.id === id)?.domain ?? `#${id}`;

  return (
    <section>
      <h1 tabIndex={-1}>Members</h1>
      <p>
        Members sign in to this account with their own user name and password. A member&apos;s API and TSIG keys never do more than the member may: change a
        member&apos;s role or domains and their keys follow at once; remove a member and their keys stop working.
      </p>
      <ErrorSummary messages={[error?.detail, ...rows.errors].filter((m): m is string => !!m)} />
      {invited ? (
        <div className="new-key" role="status">
          <p>
            Send {invited.username} this link to set a password. It is shown only now and works for 7 days, until {when(invited.invitation_expires)}.
          </p>
          <p>
            <code aria-label="The invitation link">{invitationLink(invited.invitation)}</code>
          </p>
          <CopyOrHide text={invitationLink(invited.invitation)} copyLabel="Copy the link" onDone={() => setInvited(null)} />
        </div>
      ) : null}
      {data ? <MemberTable members={data} zoneName={zoneName} onChange={setChanging} onRemove={(m) => rows.run(() => api.del(`/v1/members/${m.id}`))} /> : null}
      {changing ? (
        <ChangeMember
          key={changing.id}
          member={changing}
          zones={zones.data}
          onDone={() => {
            setChanging(null);
            reload();
          }}
        />
      ) : null}
      <h2>Invite a member</h2>
      <InviteMember
        zones={zones.data}
        onInvited={(m) => {
          setInvited(m);
          reload();
        }}
      />
    </section>
  );
}
