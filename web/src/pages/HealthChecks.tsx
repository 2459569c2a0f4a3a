/** Health checks: the account's probes, each with its status, which records' steering follows (docs/interface-b.md). */
import { useState } from 'react';
import { api, type HealthCheck } from '../api';
import { useLoad, useReadsOnly, useRowActions, useSubmit } from '../hooks';
import { ColumnHeads, ConfirmButton, ErrorSummary, Field, ReadsOnlyNotice, when } from '../ui';

const FIELDS = ['type', 'address', 'port', 'path', 'host', 'interval', 'timeout', 'fall', 'rise'] as const;
type Input = Record<(typeof FIELDS)[number], string>;
const EMPTY: Input = { type: 'http', address: '', port: '', path: '', host: '', interval: '', timeout: '', fall: '', rise: '' };
const NUMBERS = new Set(['port', 'interval', 'timeout', 'fall', 'rise']);
const LABELS: Record<keyof Input, string> = { type: 'Type', address: 'Address', port: 'Port', path: 'Path', host: 'Host', interval: 'Interval', timeout: 'Timeout', fall: 'Fall', rise: 'Rise' };

/** The body: blank fields left out (the server's defaults), numbers as numbers, the rest as typed for the server to explain. */
function bodyOf(input: Input): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const text = input[f].trim();
    if (text !== '') body[f] = NUMBERS.has(f) && /^\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  }
  return body;
}

const HINTS: Partial<Record<keyof Input, string>> = {
  address: 'An IPv4 or IPv6 address (public, unless the operator allows others)',
  port: 'Default 80 for http, 443 for https; required for tcp',
  path: 'Default /',
  host: 'The Host header and TLS server name; default the address',
  interval: 'Seconds between probes, 1–300; default 10',
  timeout: 'Seconds, below the interval; default 2',
  fall: 'Failed probes in a row that make it down; default 3',
  rise: 'Successful probes in a row that make it up; default 2',
};

function CreateHealthCheck({ onCreated }: { onCreated: () => void }) {
  const [input, setInput] = useState<Input>(EMPTY);
  const form = useSubmit<HealthCheck>([...FIELDS], () => {
    setInput(EMPTY);
    onCreated();
  });
  const submit = form.submitWith(() => api.post<HealthCheck>('/v1/healthchecks', bodyOf(input)));
  const set = (name: keyof Input, value: string) => setInput((i) => ({ ...i, [name]: value }));
  return (
    <form onSubmit={submit} noValidate aria-label="Create a health check" className="grid-form">
      <ErrorSummary messages={form.general} />
      <Field label="Type" errors={form.byField.type}>
        {(p) => (
          <select {...p} name="type" value={input.type} onChange={(e) => set('type', e.target.value)}>
            <option value="http">http</option>
            <option value="https">https</option>
            <option value="tcp">tcp</option>
          </select>
        )}
      </Field>
      {FIELDS.filter((f) => f !== 'type').map((f) => (
        <Field key={f} label={LABELS[f]} hint={HINTS[f]} errors={form.byField[f]} required={f === 'address'}>
          {(p) => <input {...p} name={f} autoComplete="off" inputMode={NUMBERS.has(f) ? 'decimal' : undefined} value={input[f]} onChange={(e) => set(f, e.target.value)} />}
        </Field>
      ))}
      <div className="actions">
        <button type="submit" className="primary" disabled={form.busy}>
          Create health check
        </button>
      </div>
    </form>
  );
}

/** The checks; with `onDelete` null (a viewer) without the column of buttons. */
function HealthCheckTable({ checks, onDelete }: { checks: HealthCheck[]; onDelete: ((c: HealthCheck) => Promise<void>) | null }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Your health checks</caption>
        <ColumnHeads labels={['Id', 'Probe', 'Every', 'Status', 'Since']} actions={onDelete !== null} />
        <tbody>
          {checks.map((c) => (
            <tr key={c.id}>
              <th scope="row">{c.id}</th>
              <td>
                <code>{c.type === 'tcp' ? `tcp ${c.address}:${c.port}` : `${c.type}://${c.host || c.address}:${c.port}${c.path}`}</code>
              </td>
              <td>
                {c.interval} s (down after {c.fall}, up after {c.rise})
              </td>
              <td className={`status-${c.status}`}>{c.status}</td>
              <td>{when(c.changed)}</td>
              {onDelete ? (
                <td className="row-actions">
                  <ConfirmButton label="Delete" ariaLabel={`Delete health check ${c.id}`} question={`Delete health check ${c.id}?`} confirmLabel="Yes, delete" onConfirm={() => onDelete(c)} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function HealthChecks() {
  const { data, error, reload } = useLoad(() => api.all<HealthCheck>('/v1/healthchecks?limit=500'), []);
  const rows = useRowActions(reload);
  const readsOnly = useReadsOnly();
  return (
    <section>
      <h1 tabIndex={-1}>Health checks</h1>
      <p>
        A health check probes one of your servers. A record whose steering names the check is left out of answers while the check is down (unless every
        candidate is down); its zone's secondaries follow.
      </p>
      <ErrorSummary messages={[error?.detail, ...rows.errors].filter((m): m is string => !!m)} />
      <p>
        <button type="button" onClick={reload}>
          Refresh statuses
        </button>
      </p>
      {data ? data.length === 0 ? <p>No health checks yet.</p> : <HealthCheckTable checks={data} onDelete={readsOnly ? null : (c) => rows.run(() => api.del(`/v1/healthchecks/${c.id}`))} /> : null}
      {readsOnly ? (
        <ReadsOnlyNotice what="the health checks" />
      ) : (
        <>
          <h2>Create a health check</h2>
          <CreateHealthCheck onCreated={reload} />
        </>
      )}
    </section>
  );
}
