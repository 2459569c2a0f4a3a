/** API keys: the account's keys with their scopes, a new key (shown once, optionally scoped) and revocation. */
import { useState, type FormEvent } from 'react';
import { api, createKey, revokeKey, type ApiKey, type Domain, type KeyScope, type NewKey, type Problem, type Session } from '../api';
import { ConfirmButton, ErrorSummary, Field, problemOf, splitProblem, useLoad, when } from '../ui';

const EXPIRY_CHOICES: [number, string][] = [
  [24, '1 day'],
  [168, '1 week'],
  [720, '30 days'],
  [8760, '1 year'],
  [0, 'never'],
];

/** Names or networks typed as a list: commas, spaces or new lines between them. */
const listOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** The scope the form describes; fields left empty do not restrict, so an empty form is a key without limits. */
function scopeOf(domains: Set<number>, readOnly: boolean, names: string, types: string, subnets: string): KeyScope {
  const records = { ...(listOf(names).length ? { names: listOf(names) } : {}), ...(listOf(types).length ? { types: listOf(types).map((t) => t.toUpperCase()) } : {}) };
  return {
    ...(domains.size ? { domains: [...domains].sort((a, b) => a - b) } : {}),
    ...(readOnly ? { read_only: true } : {}),
    ...(Object.keys(records).length ? { records } : {}),
    ...(listOf(subnets).length ? { subnets: listOf(subnets) } : {}),
  };
}

/** A key's scope in a few words, for the table. */
function describeScope(scope: KeyScope, names: Map<number, string>): string {
  const parts: string[] = [];
  if (scope.domains) parts.push(`domains: ${scope.domains.map((id) => names.get(id) ?? `#${id}`).join(', ')}`);
  if (scope.read_only) parts.push('read-only');
  if (scope.records) {
    const r = scope.records;
    parts.push(`records only${r.names ? ` at ${r.names.join(', ')}` : ''}${r.types ? ` of type ${r.types.join(', ')}` : ''}`);
  }
  if (scope.subnets) parts.push(`from ${scope.subnets.join(', ')}`);
  return parts.length ? parts.join('; ') : 'everything';
}

/** The reasons filed under one scope field (scope.records.names and so on). */
const scopeErrors = (p: Problem | null, field: string): string[] => (p?.errors ?? []).filter((e) => e.field === field || e.field?.startsWith(`${field}.`)).map((e) => e.reason);

export function Keys({ session, onOwnKeyRevoked }: { session: Session; onOwnKeyRevoked: () => void }) {
  const { data, error, reload } = useLoad(() => api.all<ApiKey>('/v1/keys?limit=500'), []);
  const zones = useLoad(async () => [...(await api.all<Domain>('/v1/domains?limit=500')), ...(await api.all<Domain>('/v1/zonemirrors?limit=500'))], []);
  const zoneNames = new Map((zones.data ?? []).map((d) => [d.id, d.domain]));
  const [domains, setDomains] = useState<Set<number>>(new Set());
  const [readOnly, setReadOnly] = useState(false);
  const [names, setNames] = useState('');
  const [types, setTypes] = useState('');
  const [subnets, setSubnets] = useState('');
  const [label, setLabel] = useState('');
  const [expires, setExpires] = useState('168');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [created, setCreated] = useState<NewKey | null>(null);
  const [rowError, setRowError] = useState('');
  const { byField, general } = splitProblem(problem, ['label', 'expires', 'password', 'scope']);
  // Scope problems are shown at their own fields; one naming the scope as a whole goes to the summary.
  const scopeGeneral = scopeErrors(problem, 'scope').filter((m) => !['domains', 'read_only', 'records', 'subnets'].some((f) => scopeErrors(problem, `scope.${f}`).includes(m)));

  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      // Creating a key takes the password again: a stolen panel session cannot mint long-lived keys.
      const scope = scopeOf(domains, readOnly, names, types, subnets);
      setCreated(await createKey(session.username, password, label, Number(expires), { scope, sessionKey: session.key }));
      setProblem(null);
      setPassword('');
      setLabel('');
      setDomains(new Set());
      setReadOnly(false);
      setNames('');
      setTypes('');
      setSubnets('');
      reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
      <p>Keys let scripts use the API (both interfaces) as you. The server keeps only a hash: a key is shown once, when it is created.</p>
      <ErrorSummary messages={[error?.detail, rowError].filter((m): m is string => !!m)} />
      {created ? (
        <div className="new-key" role="status">
          <p>
            New key <strong>{created.label || '(no label)'}</strong>, shown only this once — copy it now:
          </p>
          <code aria-label="The new API key">{created.key}</code>
          <div className="actions">
            <button type="button" onClick={() => navigator.clipboard?.writeText(created.key)}>
              Copy key
            </button>
            <button type="button" onClick={() => setCreated(null)}>
              Done, hide it
            </button>
          </div>
        </div>
      ) : null}
      {data ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Starts with</th>
                <th scope="col">May do</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((k) => (
                <tr key={k.id}>
                  <th scope="row">
                    {k.label || '(no label)'}
                    {k.id === session.keyId ? <span className="badge pending"> this session</span> : null}
                  </th>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{describeScope(k.scope, zoneNames)}</td>
                  <td>{when(k.created)}</td>
                  <td>{when(k.expires, 'never')}</td>
                  <td className="row-actions">
                    <ConfirmButton
                      label="Revoke"
                      question={k.id === session.keyId ? 'Revoke the key of this session? You will be signed out.' : `Revoke the key “${k.label || k.prefix}”? Scripts using it stop working.`}
                      confirmLabel="Yes, revoke"
                      onConfirm={async () => {
                        if (k.id === session.keyId) return onOwnKeyRevoked();
                        try {
                          await revokeKey(k.id);
                          setRowError('');
                        } catch (e) {
                          setRowError(problemOf(e).detail);
                        }
                        reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <h2>Create a key</h2>
      <form onSubmit={submit} noValidate aria-label="Create an API key" className="grid-form">
        <ErrorSummary messages={[...general, ...scopeGeneral]} />
        <Field label="Label" errors={byField.label} hint="To recognise the key by, e.g. “deploy script”">
          {(p) => <input {...p} name="label" maxLength={100} value={label} onChange={(e) => setLabel(e.target.value)} autoComplete="off" />}
        </Field>
        <Field label="Expires after" errors={byField.expires}>
          {(p) => (
            <select {...p} name="expires" value={expires} onChange={(e) => setExpires(e.target.value)}>
              {EXPIRY_CHOICES.map(([h, text]) => (
                <option key={h} value={h}>
                  {text}
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset className="scope">
          <legend>What the key may do</legend>
          <p className="hint">Leave a field empty to not limit it; a key with nothing chosen may do everything your account may. A scope cannot be widened later.</p>
          <fieldset>
            <legend>Domains it sees (none chosen: all, and it may create domains)</legend>
            {zones.data?.length === 0 ? <p>You have no domains yet.</p> : null}
            {(zones.data ?? []).map((d) => (
              <label key={d.id} className="check">
                <input
                  type="checkbox"
                  name="scope-domain"
                  value={d.id}
                  checked={domains.has(d.id)}
                  onChange={(e) => {
                    const next = new Set(domains);
                    if (e.target.checked) next.add(d.id);
                    else next.delete(d.id);
                    setDomains(next);
                  }}
                />{' '}
                {d.domain}
              </label>
            ))}
            {scopeErrors(problem, 'scope.domains').map((m) => (
              <p key={m} className="field-error">
                {m}
              </p>
            ))}
          </fieldset>
          <Field label="Read-only" errors={scopeErrors(problem, 'scope.read_only')} hint="It can read but change nothing">
            {(p) => <input {...p} name="read_only" type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />}
          </Field>
          <Field label="Record names it may write" errors={scopeErrors(problem, 'scope.records.names')} hint="Relative to the domain, separated by commas: @ is the apex, *.x covers everything below x, e.g. _acme-challenge, *.dyn. Any record limit also rules out domain settings, DNSSEC, TSIG keys, mirrors and keys.">
            {(p) => <input {...p} name="record_names" value={names} onChange={(e) => setNames(e.target.value)} autoComplete="off" />}
          </Field>
          <Field label="Record types it may write" errors={scopeErrors(problem, 'scope.records.types')} hint="Separated by commas, e.g. TXT, A, AAAA">
            {(p) => <input {...p} name="record_types" value={types} onChange={(e) => setTypes(e.target.value)} autoComplete="off" />}
          </Field>
          <Field label="Networks it works from" errors={scopeErrors(problem, 'scope.subnets')} hint="CIDR networks separated by commas, e.g. 192.0.2.0/24, 2001:db8::/32; from elsewhere the key fails as a wrong key does">
            {(p) => <input {...p} name="subnets" value={subnets} onChange={(e) => setSubnets(e.target.value)} autoComplete="off" />}
          </Field>
        </fieldset>
        <Field label="Your password" errors={byField.password} required hint={`Confirms that it is you (${session.username})`}>
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary">
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}
