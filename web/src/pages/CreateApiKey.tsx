/** The form creating an API key: label, expiry, the scope (what the key may do) and the user's password. */
import { useState } from 'react';
import { createKey, type Domain, type KeyScope, type NewKey, type Problem, type Session } from '../api';
import { useSubmit } from '../hooks';
import { ErrorSummary, Field, listOf } from '../ui';

const EXPIRY_CHOICES: [number, string][] = [
  [24, '1 day'],
  [168, '1 week'],
  [720, '30 days'],
  [8760, '1 year'],
  [0, 'never'],
];

/** The scope fields as typed: names, types and networks as lists in text. */
interface ScopeInput {
  domains: Set<number>;
  readOnly: boolean;
  names: string;
  types: string;
  subnets: string;
}
const NO_SCOPE: ScopeInput = { domains: new Set(), readOnly: false, names: '', types: '', subnets: '' };

/** The scope the form describes; fields left empty do not restrict, so an empty form is a key without limits. */
function scopeOf({ domains, readOnly, names, types, subnets }: ScopeInput): KeyScope {
  const records = { ...(listOf(names).length ? { names: listOf(names) } : {}), ...(listOf(types).length ? { types: listOf(types).map((t) => t.toUpperCase()) } : {}) };
  return {
    ...(domains.size ? { domains: [...domains].sort((a, b) => a - b) } : {}),
    ...(readOnly ? { read_only: true } : {}),
    ...(Object.keys(records).length ? { records } : {}),
    ...(listOf(subnets).length ? { subnets: listOf(subnets) } : {}),
  };
}

/** The reasons filed under one scope field (scope.records.names and so on). */
const scopeErrors = (p: Problem | null, field: string): string[] => (p?.errors ?? []).filter((e) => e.field === field || e.field?.startsWith(`${field}.`)).map((e) => e.reason);

/** Scope problems naming the scope as a whole (not one of its fields), for the form's error summary. */
const scopeGeneral = (p: Problem | null): string[] =>
  scopeErrors(p, 'scope').filter((m) => !['domains', 'read_only', 'records', 'subnets'].some((f) => scopeErrors(p, `scope.${f}`).includes(m)));

/** Checkboxes choosing some of the account's domains (an API key's, a member's); none chosen means all. */
export function DomainChoices({
  zones,
  chosen,
  onChange,
  errors,
  legend = 'Domains it sees (none chosen: all, and it may create domains)',
}: {
  zones: Domain[] | null;
  chosen: Set<number>;
  onChange: (chosen: Set<number>) => void;
  errors: string[];
  legend?: string;
}) {
  const toggle = (id: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  };
  return (
    <fieldset>
      <legend>{legend}</legend>
      {zones?.length === 0 ? <p>You have no domains yet.</p> : null}
      {(zones ?? []).map((d) => (
        <label key={d.id} className="check">
          <input type="checkbox" name="scope-domain" value={d.id} checked={chosen.has(d.id)} onChange={(e) => toggle(d.id, e.target.checked)} /> {d.domain}
        </label>
      ))}
      {errors.map((m) => (
        <p key={m} className="field-error">
          {m}
        </p>
      ))}
    </fieldset>
  );
}

function ScopeFields({ scope, onChange, zones, problem }: { scope: ScopeInput; onChange: (scope: ScopeInput) => void; zones: Domain[] | null; problem: Problem | null }) {
  const set = <K extends keyof ScopeInput>(name: K, value: ScopeInput[K]) => onChange({ ...scope, [name]: value });
  return (
    <fieldset className="scope">
      <legend>What the key may do</legend>
      <p className="hint">Leave a field empty to not limit it; a key with nothing chosen may do everything your account may. A scope cannot be widened later.</p>
      <DomainChoices zones={zones} chosen={scope.domains} onChange={(d) => set('domains', d)} errors={scopeErrors(problem, 'scope.domains')} />
      <Field label="Read-only" errors={scopeErrors(problem, 'scope.read_only')} hint="It can read but change nothing">
        {(p) => <input {...p} name="read_only" type="checkbox" checked={scope.readOnly} onChange={(e) => set('readOnly', e.target.checked)} />}
      </Field>
      <Field label="Record names it may write" errors={scopeErrors(problem, 'scope.records.names')} hint="Relative to the domain, separated by commas: @ is the apex, *.x covers everything below x, e.g. _acme-challenge, *.dyn. Any record limit also rules out domain settings, DNSSEC, TSIG keys, mirrors and keys.">
        {(p) => <input {...p} name="record_names" value={scope.names} onChange={(e) => set('names', e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Record types it may write" errors={scopeErrors(problem, 'scope.records.types')} hint="Separated by commas, e.g. TXT, A, AAAA">
        {(p) => <input {...p} name="record_types" value={scope.types} onChange={(e) => set('types', e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Networks it works from" errors={scopeErrors(problem, 'scope.subnets')} hint="CIDR networks separated by commas, e.g. 192.0.2.0/24, 2001:db8::/32; from elsewhere the key fails as a wrong key does">
        {(p) => <input {...p} name="subnets" value={scope.subnets} onChange={(e) => set('subnets', e.target.value)} autoComplete="off" />}
      </Field>
    </fieldset>
  );
}

export function CreateApiKey({ session, zones, onCreated }: { session: Session; zones: Domain[] | null; onCreated: (k: NewKey) => void }) {
  const [label, setLabel] = useState('');
  const [expires, setExpires] = useState('168');
  const [scope, setScope] = useState<ScopeInput>(NO_SCOPE);
  const [password, setPassword] = useState('');
  const form = useSubmit<NewKey>(['label', 'expires', 'password', 'scope'], (k) => {
    setPassword('');
    setLabel('');
    setScope(NO_SCOPE);
    onCreated(k);
  });
  const { byField, general, problem } = form;
  // Creating a key takes the password again: a stolen panel session cannot mint long-lived keys.
  const submit = form.submitWith(() => createKey(session.username, password, label, Number(expires), { scope: scopeOf(scope), sessionKey: session.key }));

  return (
    <form onSubmit={submit} noValidate aria-label="Create an API key" className="grid-form">
      {/* Scope problems are shown at their own fields; one naming the scope as a whole goes to the summary. */}
      <ErrorSummary messages={[...general, ...scopeGeneral(problem)]} />
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
      <ScopeFields scope={scope} onChange={setScope} zones={zones} problem={problem} />
      <Field label="Your password" errors={byField.password} required hint={`Confirms that it is you (${session.username})`}>
        {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
      </Field>
      <div className="actions">
        <button type="submit" className="primary">
          Create key
        </button>
      </div>
    </form>
  );
}
