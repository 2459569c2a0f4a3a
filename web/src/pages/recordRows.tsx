/** A record as a table shows it: its owner name, TTL and data texts from the type's schema, for the records table and the zone-file diff. */
import type { RecordItem } from '../api';
import { toText, type FieldSpec, type TypeSpec } from '../schema';

/** "target" → "Target", "default_ttl" → "Default ttl". */
export const labelOf = (f: FieldSpec): string => (f.name === 'ttl' ? 'TTL' : f.name.charAt(0).toUpperCase() + f.name.slice(1).replace(/_/g, ' '));

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
