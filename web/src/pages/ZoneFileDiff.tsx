/** What a zone-file import changes (or changed): counts, the domain settings from the file's SOA and, for a preview, the records. */
import type { RecordItem, ZoneFileDiff } from '../api';
import { useLoad } from '../hooks';
import { recordTypes } from '../schema';
import { ColumnHeads } from '../ui';
import { RecordValue, rowOf, shownName } from './recordRows';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The difference an import makes, one row per record it adds, removes or changes. */
function DiffTable({ diff }: { diff: ZoneFileDiff }) {
  const types = useLoad(recordTypes, []);
  const rows: { change: string; rec: RecordItem; key: string }[] = [
    ...diff.added.map((rec, i) => ({ change: 'added', rec, key: `a${i}` })),
    ...diff.removed.map((rec, i) => ({ change: 'removed', rec, key: `r${i}` })),
    ...diff.changed.map((c, i) => ({ change: `TTL ${c.before.ttl === 0 ? 'default' : String(c.before.ttl)} → ${c.after.ttl === 0 ? 'default' : String(c.after.ttl)}`, rec: c.after, key: `c${i}` })),
  ];
  if (rows.length === 0) return null;
  const spec = (type: string) => types.data?.find((t) => t.type === type);
  return (
    <div className="table-wrap">
      <table className="records-table">
        <caption className="sr-only">Records the import changes</caption>
        <ColumnHeads labels={['Change', 'Name', 'Type', 'Value']} />
        <tbody>
          {rows.map(({ change, rec, key }) => {
            const s = spec(rec.type);
            const row = s ? rowOf(rec, s) : null;
            return (
              <tr key={key} className={`diff-${change.split(' ')[0]}`}>
                <td data-label="Change">{change}</td>
                <td data-label="Name">{shownName(String(rec.name ?? ''))}</td>
                <td data-label="Type">{rec.type}</td>
                <td data-label="Value" className="value">
                  {row ? <RecordValue row={row} /> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function DiffSummary({ diff }: { diff: ZoneFileDiff }) {
  const settings = diff.domain.changed.map((f) => `${f === 'soa' ? 'SOA e-mail' : f.replace(/_/g, ' ')}: ${String(diff.domain[f as keyof ZoneFileDiff['domain']])}`);
  return (
    <>
      <p>
        {diff.dry_run ? 'The import would make these changes' : 'Imported'}: {plural(diff.added.length, 'record')} added, {diff.removed.length} removed,{' '}
        {diff.changed.length} with another TTL, {diff.unchanged.length} unchanged.
        {settings.length ? ` Domain settings from the file's SOA: ${settings.join('; ')}.` : ''}
      </p>
      {diff.dry_run ? <DiffTable diff={diff} /> : null}
    </>
  );
}
