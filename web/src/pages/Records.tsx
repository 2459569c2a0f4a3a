/**
 * A domain's records in one table (type filter, search by name or value, sorting) and one "add record" form
 * whose fields follow the chosen type. Every column, value and form field comes from the types' schemas in
 * the OpenAPI document, so a new type in the registry needs nothing here; errors from the API appear next to
 * the field they name. A viewer (reads only) gets the table without the controls that change records.
 */
import { useId, useMemo, useState } from 'react';
import { api, type RecordItem } from '../api';
import { useLoad } from '../hooks';
import { recordTypes, type TypeSpec } from '../schema';
import { ErrorSummary, ReadsOnlyNotice } from '../ui';
import { RecordForm } from './RecordForm';
import { rowOf, shownName } from './recordRows';
import { RecordTable } from './RecordTable';

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

export function Records({ domainId, domain, readsOnly }: { domainId: number; domain: string; readsOnly: boolean }) {
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
          <RecordTable rows={rows} total={all.length} domainId={domainId} domain={domain} reload={records.reload} readsOnly={readsOnly} />
          {readsOnly ? (
            <ReadsOnlyNotice what="this domain's records" />
          ) : (
            <>
              <h3 id="add-record-heading">Add a record</h3>
              <AddRecord types={types.data} domainId={domainId} reload={records.reload} />
            </>
          )}
        </>
      )}
    </section>
  );
}
