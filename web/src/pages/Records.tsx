/**
 * A domain's records in one table (type filter, search by name or value, sorting) and one "add record" form
 * whose fields follow the chosen type. Every column, value and form field comes from the types' schemas in
 * the OpenAPI document, so a new type in the registry needs nothing here; errors from the API appear next to
 * the field they name.
 */
import { Fragment, useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';
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

function RecordForm({ spec, initial, label, submitLabel, onSubmit, onCancel, before }: {
  spec: TypeSpec;
  initial?: RecordItem;
  label: string;
  submitLabel: string;
  onSubmit: (body: Record<string, unknown>) => Promise<void>;
  onCancel?: () => void;
  /** Controls shown first in the form (the add form's type choice). */
  before?: ReactNode;
}) {
  const start = () => Object.fromEntries(spec.fields.map((f) => [f.name, toText(initial ? initial[f.name] : '')]));
  const [values, setValues] = useState<Record<string, string>>(start);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  // Another type chosen: its own empty fields, so values typed for one type do not leak into another's. Reset
  // here rather than by remounting the form, which would take the keyboard focus away from the type's select.
  const [shownType, setShownType] = useState(spec.type);
  if (shownType !== spec.type) {
    setShownType(spec.type);
    setValues(start());
    setProblem(null);
  }
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
      {before}
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

/** The fields of a record's data: all but its owner name and TTL, which have columns of their own. */
const dataFields = (spec: TypeSpec): FieldSpec[] => spec.fields.filter((f) => f.name !== 'name' && f.name !== 'ttl');

/** One row of a records table: the record with the texts it is shown, searched and sorted by. */
export interface Row {
  rec: RecordItem;
  spec: TypeSpec;
  name: string;
  ttl: number;
  /** The data fields with their texts, in the schema's order. */
  data: { label: string; text: string }[];
  value: string;
}

export function rowOf(rec: RecordItem, spec: TypeSpec): Row {
  const data = dataFields(spec).map((f) => ({ label: labelOf(f), text: toText(rec[f.name]) }));
  return { rec, spec, name: toText(rec.name), ttl: typeof rec.ttl === 'number' ? rec.ttl : 0, data, value: data.map((d) => d.text).join(' ') };
}

export const shownName = (name: string): string => (name === '' ? '@' : name);

/** A record's data: the value alone for a one-field type, else each field with its label. */
export function RecordValue({ row }: { row: Row }) {
  if (row.data.length === 1) return <>{row.data[0]?.text}</>;
  return (
    <>
      {row.data.map((d) => (
        <span className="kv" key={d.label}>
          <span className="k">{d.label}</span> {d.text}
        </span>
      ))}
    </>
  );
}

type SortKey = 'name' | 'type' | 'value' | 'ttl';
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'type', label: 'Type' },
  { key: 'value', label: 'Value' },
  { key: 'ttl', label: 'TTL' },
];

const text = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
/** Names with the apex first. */
const byName = (a: Row, b: Row): number => (a.name === '' || b.name === '' ? Number(b.name === '') - Number(a.name === '') : text.compare(a.name, b.name));
function compare(a: Row, b: Row, key: SortKey): number {
  const byKey = key === 'ttl' ? a.ttl - b.ttl : key === 'type' ? text.compare(a.rec.type, b.rec.type) : key === 'value' ? text.compare(a.value, b.value) : byName(a, b);
  // Ties keep a stable, meaningful order: by name, then type, then creation.
  return byKey || byName(a, b) || text.compare(a.rec.type, b.rec.type) || a.rec.id - b.rec.id;
}

function RecordTable({ rows, total, domainId, domain, reload }: { rows: Row[]; total: number; domainId: number; domain: string; reload: () => void }) {
  const [sort, setSort] = useState<{ key: SortKey; ascending: boolean }>({ key: 'name', ascending: true });
  const [editing, setEditing] = useState<number | null>(null);
  const [rowError, setRowError] = useState('');
  const sorted = useMemo(() => [...rows].sort((a, b) => (sort.ascending ? 1 : -1) * compare(a, b, sort.key)), [rows, sort]);
  const toggle = (key: SortKey) => setSort((s) => ({ key, ascending: s.key === key ? !s.ascending : true }));

  return (
    <>
      <ErrorSummary messages={rowError ? [rowError] : []} />
      {total === 0 ? (
        <p className="muted">No records yet: add the first one below.</p>
      ) : rows.length === 0 ? (
        <p className="muted">No record matches.</p>
      ) : (
        <div className="table-wrap">
          <table className="records-table">
            <caption className="sr-only">Records of {domain}, sorted by {sort.key} {sort.ascending ? 'ascending' : 'descending'}</caption>
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th scope="col" key={c.key} aria-sort={sort.key === c.key ? (sort.ascending ? 'ascending' : 'descending') : undefined}>
                    <button type="button" className="sort" onClick={() => toggle(c.key)}>
                      {c.label}
                      <span aria-hidden="true">{sort.key === c.key ? (sort.ascending ? ' ▲' : ' ▼') : ' ↕'}</span>
                    </button>
                  </th>
                ))}
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((row) => {
                const { rec, spec } = row;
                const base = `/v1/domains/${domainId}/${rec.type}`;
                const what = `${rec.type} record ${shownName(row.name)} ${row.value}`;
                return (
                  <Fragment key={rec.id}>
                    <tr>
                      <td data-label="Name">{shownName(row.name)}</td>
                      <td data-label="Type">{rec.type}</td>
                      <td data-label="Value" className="value">
                        <RecordValue row={row} />
                      </td>
                      <td data-label="TTL">{row.ttl === 0 ? 'default' : row.ttl}</td>
                      <td className="row-actions">
                        <button type="button" aria-label={`Edit ${what}`} aria-expanded={editing === rec.id} onClick={() => setEditing(editing === rec.id ? null : rec.id)}>
                          Edit
                        </button>
                        <ConfirmButton
                          label="Delete"
                          ariaLabel={`Delete ${what}`}
                          question={`Delete this ${rec.type} record from ${domain}?`}
                          confirmLabel="Yes, delete"
                          onConfirm={async () => {
                            try {
                              await api.del(`${base}/${rec.id}`);
                              setRowError('');
                              reload();
                            } catch (e) {
                              setRowError(problemOf(e).detail);
                            }
                          }}
                        />
                      </td>
                    </tr>
                    {editing === rec.id ? (
                      <tr className="edit-row">
                        <td colSpan={COLUMNS.length + 1}>
                          <RecordForm
                            spec={spec}
                            initial={rec}
                            label={`Edit ${rec.type} record`}
                            submitLabel="Save changes"
                            onCancel={() => setEditing(null)}
                            onSubmit={async (body) => {
                              if (Object.keys(body).length > 0) await api.patch(`${base}/${rec.id}`, body);
                              setEditing(null);
                              reload();
                            }}
                          />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** One form for every type: choosing the type swaps in that type's fields. */
function AddRecord({ types, domainId, reload }: { types: TypeSpec[]; domainId: number; reload: () => void }) {
  const [type, setType] = useState(types[0]?.type ?? '');
  const id = useId();
  const spec = types.find((t) => t.type === type);
  if (!spec) return null;
  const typeChoice = (
    <div className="field">
      <label htmlFor={id}>Type</label>
      <select id={id} name="type" aria-describedby={`${id}-hint`} value={type} onChange={(e) => setType(e.target.value)}>
        {types.map((t) => (
          <option key={t.type} value={t.type}>
            {t.type}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-hint`}>
        {spec.description}
      </p>
    </div>
  );
  return (
    <RecordForm spec={spec} label="Add a record" submitLabel={`Add ${type} record`} before={typeChoice} onSubmit={async (body) => (await api.post(`/v1/domains/${domainId}/${type}`, body), reload())} />
  );
}

export function Records({ domainId, domain }: { domainId: number; domain: string }) {
  const types = useLoad(recordTypes, []);
  const records = useLoad(() => api.all<RecordItem>(`/v1/domains/${domainId}/records?limit=500`), [domainId]);
  const [type, setType] = useState('');
  const [search, setSearch] = useState('');
  const problems = [types.error?.detail, records.error?.detail].filter((m): m is string => !!m);

  const all = useMemo(() => {
    const specs = new Map(types.data?.map((t) => [t.type, t]));
    return (records.data ?? []).flatMap((r) => {
      const spec = specs.get(r.type);
      return spec ? [rowOf(r, spec)] : [];
    });
  }, [types.data, records.data]);
  const needle = search.trim().toLowerCase();
  const rows = all.filter((r) => (!type || r.rec.type === type) && (!needle || shownName(r.name).toLowerCase().includes(needle) || r.value.toLowerCase().includes(needle)));
  const counts = new Map<string, number>();
  for (const r of all) counts.set(r.rec.type, (counts.get(r.rec.type) ?? 0) + 1);

  return (
    <section aria-labelledby="records-heading">
      <h2 id="records-heading">Records</h2>
      <ErrorSummary messages={problems} />
      {!types.data || !records.data ? (
        problems.length ? null : <p>Loading records…</p>
      ) : (
        <>
          <div className="toolbar" role="search" aria-label="Filter records">
            <label htmlFor="record-type">Type</label>
            <select id="record-type" value={type} onChange={(e) => setType(e.target.value)}>
              <option value="">All types ({all.length})</option>
              {types.data.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.type} ({counts.get(t.type) ?? 0})
                </option>
              ))}
            </select>
            <label htmlFor="record-search">Search</label>
            <input id="record-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="name or value" />
            <span className="muted" role="status">
              {rows.length === all.length ? `${all.length} ${all.length === 1 ? 'record' : 'records'}` : `${rows.length} of ${all.length} records`}
            </span>
          </div>
          <RecordTable rows={rows} total={all.length} domainId={domainId} domain={domain} reload={records.reload} />
          <h3 id="add-record-heading">Add a record</h3>
          <AddRecord types={types.data} domainId={domainId} reload={records.reload} />
        </>
      )}
    </section>
  );
}
