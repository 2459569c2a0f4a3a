/** The fields of a domain, for creating one and for editing its settings. */
import { useState } from 'react';
import type { Domain } from '../api';
import { useSubmit } from '../hooks';
import { ErrorSummary, Field, listOf } from '../ui';

export type DomainBody = Omit<Domain, 'id'>;

const FIELDS = ['domain', 'soa', 'default_ttl', 'status', 'axfr'];

export function DomainForm({ initial, submitLabel, label, onSubmit }: { initial?: Domain; submitLabel: string; label: string; onSubmit: (body: DomainBody) => Promise<void> }) {
  const [domain, setDomain] = useState(initial?.domain ?? '');
  const [soa, setSoa] = useState(initial?.soa ?? '');
  const [ttl, setTtl] = useState(String(initial?.default_ttl ?? 0));
  const [status, setStatus] = useState<Domain['status']>(initial?.status ?? 'active');
  const [axfr, setAxfr] = useState((initial?.axfr ?? []).join(', '));
  const [saved, setSaved] = useState('');
  const form = useSubmit<void>(FIELDS, () => {
    if (initial) setSaved('Saved.');
  });
  const { byField, general } = form;

  const submit = form.submitWith(() => {
    setSaved('');
    // A TTL that is not a whole number goes as typed, for the server to explain.
    return onSubmit({ domain: domain.trim(), soa: soa.trim(), default_ttl: (/^\d+$/.test(ttl.trim()) ? Number(ttl) : ttl) as number, status, axfr: listOf(axfr) });
  });

  return (
    <form onSubmit={submit} noValidate aria-label={label} className="grid-form">
      <ErrorSummary messages={general} />
      <Field label="Domain name" errors={byField.domain} required hint="e.g. example.com">
        {(p) => <input {...p} name="domain" value={domain} onChange={(e) => setDomain(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="SOA e-mail" errors={byField.soa} required hint="The zone's contact address">
        {(p) => <input {...p} name="soa" type="email" value={soa} onChange={(e) => setSoa(e.target.value)} autoComplete="email" />}
      </Field>
      <Field label="Default TTL (seconds)" errors={byField.default_ttl} hint="0 means the server default (86400)">
        {(p) => <input {...p} name="default_ttl" inputMode="numeric" value={ttl} onChange={(e) => setTtl(e.target.value)} />}
      </Field>
      <Field label="Status" errors={byField.status} hint="An inactive domain is not served by the DNS server">
        {(p) => (
          <select {...p} name="status" value={status} onChange={(e) => setStatus(e.target.value as Domain['status'])}>
            <option value="active">active</option>
            <option value="inactive">inactive</option>
          </select>
        )}
      </Field>
      <Field label="AXFR allow-list" errors={byField.axfr} hint="IP addresses allowed to transfer the zone, separated by commas or spaces">
        {(p) => <textarea {...p} name="axfr" rows={2} value={axfr} onChange={(e) => setAxfr(e.target.value)} />}
      </Field>
      <div className="actions">
        <button type="submit" className="primary" disabled={form.busy}>
          {submitLabel}
        </button>
        {saved ? <span role="status">{saved}</span> : null}
      </div>
    </form>
  );
}
