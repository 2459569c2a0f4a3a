/**
 * A domain's records grouped by type. Each type's table columns and form fields come from the type's
 * schema in the OpenAPI document; errors from the API appear next to the field they name.
 */
import { Fragment, useState, type FormEvent } from 'react';
import { api, type Problem, type RecordItem } from '../api';
import { bodyOf, recordTypes, toText, type FieldSpec, type TypeSpec } from '../schema';
import { ConfirmButton, ErrorSummary, Field, problemOf, splitProblem, useLoad } from '../ui';

/** "target" → "Target", "default_ttl" → "Default ttl". */
const labelOf = (f: FieldSpec): string => (f.name === 'ttl' ? 'TTL' : f.name.charAt(0).toUpperCase() + f.name.slice(1).replace(/_/g, ' '));

function hintOf(f: FieldSpec): string {
  const parts = [f.description, f.kind === 'json' ? 'As JSON.' : ''];
  if (f.default !== undefined && f.default !== '') parts.push(`Default ${f.default}.`);
  return parts.filter(Boolean).join(' ');
}

const placeholderOf = (f: FieldSpec): string | undefined => (f.name === 'name' ? '@ for the domain itself' : f.default !== undefined && f.default !== '' ? String(f.default) : undefined);

function RecordForm({ spec, initial, label, submitLabel, onSubmit, onCancel }: {
  spec: TypeSpec;
  initial?: RecordItem;
  label: string;
  submitLabel: string;
  onSubmit: (body: Record<string, unknown>) => Promise<void>;
  onCancel?: () => void;
}) {
  const start = () => Object.fromEntries(spec.fields.map((f) => [f.name, toText(initial ? initial[f.name] : '')]));
  const [values, setValues] = useState<Record<string, string>>(start);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const { byField, general } = splitProblem(problem, spec.fields.map((f) => f.name));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      // An edit sends only what changed (PATCH); a new record sends what was filled in.
      const changed = initial ? new Set(spec.fields.filter((f) => values[f.name] !== toText(initial[f.name])).map((f) => f.name)) : undefined;
      await onSubmit(bodyOf(spec.fields, values, changed));
      setProblem(null);
      if (!initial) setValues(Object.fromEntries(spec.fields.map((f) => [f.name, ''])));
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label={label} className="grid-form">
      <ErrorSummary messages={general} />
      {spec.fields.map((f) => (
        <Field key={f.name} label={labelOf(f)} hint={hintOf(f)} errors={byField[f.name]} required={f.required}>
          {(p) =>
            f.kind === 'json' ? (
              <textarea {...p} name={f.name} rows={3} spellCheck={false} placeholder={placeholderOf(f)} value={values[f.name] ?? ''} onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))} />
            ) : (
              <input
                {...p}
                name={f.name}
                inputMode={f.kind === 'integer' ? 'numeric' : undefined}
                maxLength={f.maxLength}
                autoComplete="off"
                placeholder={placeholderOf(f)}
                value={values[f.name] ?? ''}
                onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
              />
            )
          }
        </Field>
      ))}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

function shown(f: FieldSpec, v: unknown): string {
  if (f.name === 'name' && v === '') return '@';
  if (f.name === 'ttl' && v === 0) return 'default';
  return toText(v);
}

function TypeSection({ spec, domainId, domain, records, reload }: { spec: TypeSpec; domainId: number; domain: string; records: RecordItem[]; reload: () => void }) {
  const [editing, setEditing] = useState<number | null>(null);
  const [rowError, setRowError] = useState('');
  const base = `/v1/domains/${domainId}/${spec.type}`;
  const headingId = `records-${spec.type}`;
  return (
    <section className="type-section" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {spec.type} records <span className="count">({records.length})</span>
      </h3>
      <ErrorSummary messages={rowError ? [rowError] : []} />
      {records.length > 0 ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                {spec.fields.map((f) => (
                  <th scope="col" key={f.name}>
                    {labelOf(f)}
                  </th>
                ))}
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {records.map((r) => (
                <Fragment key={r.id}>
                  <tr>
                    {spec.fields.map((f) => (
                      <td key={f.name} data-label={labelOf(f)}>
                        {shown(f, r[f.name])}
                      </td>
                    ))}
                    <td className="row-actions">
                      <button type="button" aria-label={`Edit ${spec.type} record ${shown(spec.fields[0] as FieldSpec, r[spec.fields[0]?.name ?? ''])} ${r.id}`} aria-expanded={editing === r.id} onClick={() => setEditing(editing === r.id ? null : r.id)}>
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        question={`Delete this ${spec.type} record from ${domain}?`}
                        confirmLabel="Yes, delete"
                        onConfirm={async () => {
                          try {
                            await api.del(`${base}/${r.id}`);
                            setRowError('');
                            reload();
                          } catch (e) {
                            setRowError(problemOf(e).detail);
                          }
                        }}
                      />
                    </td>
                  </tr>
                  {editing === r.id ? (
                    <tr className="edit-row">
                      <td colSpan={spec.fields.length + 1}>
                        <RecordForm
                          spec={spec}
                          initial={r}
                          label={`Edit ${spec.type} record`}
                          submitLabel="Save changes"
                          onCancel={() => setEditing(null)}
                          onSubmit={async (body) => {
                            if (Object.keys(body).length > 0) await api.patch(`${base}/${r.id}`, body);
                            setEditing(null);
                            reload();
                          }}
                        />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">No {spec.type} records.</p>
      )}
      <details>
        <summary>Add {/^[AEFHILMNORSX]/.test(spec.type) ? 'an' : 'a'} {spec.type} record</summary>
        <p className="hint">{spec.description}</p>
        <RecordForm spec={spec} label={`Add ${spec.type} record`} submitLabel={`Add ${spec.type} record`} onSubmit={async (body) => (await api.post(base, body), reload())} />
      </details>
    </section>
  );
}

export function Records({ domainId, domain }: { domainId: number; domain: string }) {
  const types = useLoad(recordTypes, []);
  const records = useLoad(() => api.all<RecordItem>(`/v1/domains/${domainId}/records?limit=500`), [domainId]);
  const problems = [types.error?.detail, records.error?.detail].filter((m): m is string => !!m);
  return (
    <section aria-labelledby="records-heading">
      <h2 id="records-heading">Records</h2>
      <ErrorSummary messages={problems} />
      {!types.data || !records.data ? (
        problems.length ? null : <p>Loading records…</p>
      ) : (
        types.data.map((spec) => (
          <TypeSection key={spec.type} spec={spec} domainId={domainId} domain={domain} records={records.data?.filter((r) => r.type === spec.type) ?? []} reload={records.reload} />
        ))
      )}
    </section>
  );
}
