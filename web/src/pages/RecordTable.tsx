/** A domain's records as a sortable table, each row with its edit form and deletion. */
import { useMemo, useState } from 'react';
import { api } from '../api';
import { useRowActions } from '../hooks';
import { ConfirmButton, ErrorSummary } from '../ui';
import { RecordForm } from './RecordForm';
import { RecordValue, shownName, type Row } from './recordRows';

type SortKey = 'name' | 'type' | 'value' | 'ttl';
type Sort = { key: SortKey; ascending: boolean };
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

/** The column headers, each a button sorting by its column (again: the other way round). */
function SortHeaders({ sort, onSort }: { sort: Sort; onSort: (key: SortKey) => void }) {
  return (
    <tr>
      {COLUMNS.map((c) => (
        <th scope="col" key={c.key} aria-sort={sort.key === c.key ? (sort.ascending ? 'ascending' : 'descending') : undefined}>
          <button type="button" className="sort" onClick={() => onSort(c.key)}>
            {c.label}
            <span aria-hidden="true">{sort.key === c.key ? (sort.ascending ? ' ▲' : ' ▼') : ' ↕'}</span>
          </button>
        </th>
      ))}
      <th scope="col">
        <span className="sr-only">Actions</span>
      </th>
    </tr>
  );
}

interface RecordRowProps {
  row: Row;
  domainId: number;
  domain: string;
  editing: boolean;
  onEdit: (editing: boolean) => void;
  onDelete: () => Promise<void>;
  reload: () => void;
  /** No edit or delete buttons (a viewer's table). */
  readsOnly: boolean;
}

/** A record's row, followed by its edit form while it is being edited. */
function RecordRow({ row, domainId, domain, editing, onEdit, onDelete, reload, readsOnly }: RecordRowProps) {
  const { rec, spec } = row;
  const what = `${rec.type} record ${shownName(row.name)} ${row.value}`;
  return (
    <>
      <tr>
        <td data-label="Name">{shownName(row.name)}</td>
        <td data-label="Type">{rec.type}</td>
        <td data-label="Value" className="value">
          <RecordValue row={row} />
        </td>
        <td data-label="TTL">{row.ttl === 0 ? 'default' : row.ttl}</td>
        <td className="row-actions">
          {readsOnly ? null : (
            <>
              <button type="button" aria-label={`Edit ${what}`} aria-expanded={editing} onClick={() => onEdit(!editing)}>
                Edit
              </button>
              <ConfirmButton label="Delete" ariaLabel={`Delete ${what}`} question={`Delete this ${rec.type} record from ${domain}?`} confirmLabel="Yes, delete" onConfirm={onDelete} />
            </>
          )}
        </td>
      </tr>
      {editing ? (
        <tr className="edit-row">
          <td colSpan={COLUMNS.length + 1}>
            <RecordForm
              spec={spec}
              initial={rec}
              label={`Edit ${rec.type} record`}
              submitLabel="Save changes"
              onCancel={() => onEdit(false)}
              onSubmit={async (body) => {
                if (Object.keys(body).length > 0) await api.patch(`/v1/domains/${domainId}/${rec.type}/${rec.id}`, body);
                onEdit(false);
                reload();
              }}
            />
          </td>
        </tr>
      ) : null}
    </>
  );
}

export function RecordTable({ rows, total, domainId, domain, reload, readsOnly }: { rows: Row[]; total: number; domainId: number; domain: string; reload: () => void; readsOnly: boolean }) {
  const [sort, setSort] = useState<Sort>({ key: 'name', ascending: true });
  const [editing, setEditing] = useState<number | null>(null);
  // A failed deletion leaves the table as it is.
  const actions = useRowActions(reload, { refreshAfterFailure: false });
  const sorted = useMemo(() => [...rows].sort((a, b) => (sort.ascending ? 1 : -1) * compare(a, b, sort.key)), [rows, sort]);
  const toggle = (key: SortKey) => setSort((s) => ({ key, ascending: s.key === key ? !s.ascending : true }));

  return (
    <>
      <ErrorSummary messages={actions.errors} />
      {total === 0 ? (
        <p className="muted">{readsOnly ? 'No records yet.' : 'No records yet: add the first one below.'}</p>
      ) : rows.length === 0 ? (
        <p className="muted">No record matches.</p>
      ) : (
        <div className="table-wrap">
          <table className="records-table">
            <caption className="sr-only">Records of {domain}, sorted by {sort.key} {sort.ascending ? 'ascending' : 'descending'}</caption>
            <thead>
              <SortHeaders sort={sort} onSort={toggle} />
            </thead>
            <tbody>
              {sorted.map((row) => (
                <RecordRow
                  key={row.rec.id}
                  row={row}
                  domainId={domainId}
                  domain={domain}
                  editing={editing === row.rec.id}
                  onEdit={(on) => setEditing(on ? row.rec.id : null)}
                  onDelete={() => actions.run(() => api.del(`/v1/domains/${domainId}/${row.rec.type}/${row.rec.id}`))}
                  reload={reload}
                  readsOnly={readsOnly}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
