/** Zone mirrors (secondary zones): their transfer state, creation, status and deletion. */
import { useState } from 'react';
import { api, type Mirror } from '../api';
import { useLoad, useReadsOnly, useRowActions, useSubmit } from '../hooks';
import { ColumnHeads, ConfirmButton, ErrorSummary, Field, listOf, ReadsOnlyNotice, when } from '../ui';

function CreateMirror({ onCreated }: { onCreated: () => void }) {
  const [domain, setDomain] = useState('');
  const [masters, setMasters] = useState('');
  const [axfr, setAxfr] = useState('');
  const [tls, setTls] = useState(false);
  const [verifyName, setVerifyName] = useState('');
  const [verifyCa, setVerifyCa] = useState('');
  const form = useSubmit<Mirror>(['domain', 'masters', 'axfr', 'tls', 'tls_verify'], () => {
    setDomain('');
    setMasters('');
    setAxfr('');
    setTls(false);
    setVerifyName('');
    setVerifyCa('');
    onCreated();
  });
  const { byField, general } = form;
  // A name to verify turns verification on; without a CA the server's system CAs are used.
  const tlsVerify = verifyName.trim() === '' ? null : { name: verifyName.trim(), ca: verifyCa.trim() === '' ? null : verifyCa };
  const submit = form.submitWith(() => api.post<Mirror>('/v1/zonemirrors', { domain: domain.trim(), masters: listOf(masters), axfr: listOf(axfr), tls, tls_verify: tlsVerify }));

  return (
    <form onSubmit={submit} noValidate aria-label="Create a zone mirror" className="grid-form">
      <ErrorSummary messages={general} />
      <Field label="Zone name" errors={byField.domain} required hint="The zone to transfer, e.g. example.org">
        {(p) => <input {...p} name="domain" value={domain} onChange={(e) => setDomain(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Primary servers" errors={byField.masters} required hint="IP addresses the zone is transferred from, separated by commas or spaces">
        {(p) => <input {...p} name="masters" value={masters} onChange={(e) => setMasters(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="AXFR allow-list" errors={byField.axfr} hint="IP addresses allowed to transfer the mirrored zone from this server">
        {(p) => <input {...p} name="axfr" value={axfr} onChange={(e) => setAxfr(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Transfer over TLS" errors={byField.tls} hint="Ask the primary servers over DNS over TLS (port 853, RFC 9103) instead of TCP; their certificate is verified only if you name it below (otherwise a TSIG key authenticates the zone)">
        {(p) => <input {...p} name="tls" type="checkbox" checked={tls} onChange={(e) => setTls(e.target.checked)} />}
      </Field>
      {tls ? (
        <>
          <Field label="Verify the certificate for" errors={byField.tls_verify} hint="The host name (or IP address) the primaries' certificate must be valid for; empty: not verified">
            {(p) => <input {...p} name="tls_verify_name" value={verifyName} onChange={(e) => setVerifyName(e.target.value)} autoComplete="off" />}
          </Field>
          <Field label="CA certificates (PEM)" hint="The CAs that may issue it; empty: the CAs this server's system trusts">
            {(p) => <textarea {...p} name="tls_verify_ca" rows={3} spellCheck={false} value={verifyCa} onChange={(e) => setVerifyCa(e.target.value)} />}
          </Field>
        </>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary">
          Create zone mirror
        </button>
      </div>
    </form>
  );
}

function transferState(m: Mirror): { text: string; cls: string } {
  const t = m.transfer;
  if (t.last_error && (!t.last_success || (t.last_attempt ?? '') > t.last_success)) return { text: `failing: ${t.last_error}`, cls: 'inactive' };
  if (t.serial !== null) return { text: 'transferred', cls: 'active' };
  return { text: 'waiting for the first transfer', cls: 'pending' };
}

export function Mirrors() {
  const { data, error, reload } = useLoad(() => api.all<Mirror>('/v1/zonemirrors?limit=500'), []);
  const rows = useRowActions(reload);
  const readsOnly = useReadsOnly();
  return (
    <section>
      <h1 tabIndex={-1}>Zone mirrors</h1>
      <p>A zone mirror is a secondary zone: this server transfers it from its primary servers and serves the copy.</p>
      <ErrorSummary messages={[error?.detail, ...rows.errors].filter((m): m is string => !!m)} />
      {data && data.length === 0 ? <p>No zone mirrors yet.</p> : null}
      {data && data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Your zone mirrors and their transfer state</caption>
            <ColumnHeads labels={['Zone', 'Primary servers', 'Status', 'Transfer', 'Serial', 'Last success', 'Last attempt']} actions={!readsOnly} />
            <tbody>
              {data.map((m) => {
                const s = transferState(m);
                return (
                  <tr key={m.id}>
                    <th scope="row">{m.domain}</th>
                    <td>
                      {m.masters.join(', ')}
                      {m.tls ? <span className="badge active">{m.tls_verify ? `TLS, verified for ${m.tls_verify.name}` : 'TLS'}</span> : null}
                    </td>
                    <td>
                      <span className={`badge ${m.status}`}>{m.status}</span>
                    </td>
                    <td>
                      <span className={`badge ${s.cls}`}>{s.text}</span>
                    </td>
                    <td>{m.transfer.serial ?? '—'}</td>
                    <td>{when(m.transfer.last_success, 'never')}</td>
                    <td>{when(m.transfer.last_attempt, 'never')}</td>
                    {readsOnly ? null : (
                      <td className="row-actions">
                        <button type="button" onClick={() => rows.run(() => api.patch(`/v1/zonemirrors/${m.id}`, { status: m.status === 'active' ? 'inactive' : 'active' }))}>
                          {m.status === 'active' ? 'Deactivate' : 'Activate'}
                          <span className="sr-only"> {m.domain}</span>
                        </button>
                        <ConfirmButton label="Delete" question={`Delete the mirror of ${m.domain}?`} confirmLabel="Yes, delete" onConfirm={() => rows.run(() => api.del(`/v1/zonemirrors/${m.id}`))} />
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {readsOnly ? (
        <ReadsOnlyNotice what="the zone mirrors" />
      ) : (
        <>
          <h2>Create a zone mirror</h2>
          <CreateMirror onCreated={reload} />
        </>
      )}
    </section>
  );
}
