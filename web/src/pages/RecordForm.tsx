/** A record's form, for adding one and for editing one: its fields follow the type's schema. */
import { useState, type ReactNode } from 'react';
import { api, type HealthCheck, type RecordItem, type Steering } from '../api';
import { useLoad, useSubmit } from '../hooks';
import { bodyOf, toText, type FieldSpec, type TypeSpec } from '../schema';
import { ErrorSummary, Field } from '../ui';
import { labelOf } from './recordRows';
import { SteeringFields, steeringInput, steeringOf, type SteeringInput } from './SteeringFields';

function hintOf(f: FieldSpec): string {
  const parts = [f.description, f.kind === 'json' ? 'As JSON.' : f.kind === 'strings' ? 'Several strings as a JSON list, e.g. ["v=spf1 …", "…"].' : ''];
  if (f.default !== undefined && f.default !== '') parts.push(`Default ${f.default}.`);
  return parts.filter(Boolean).join(' ');
}

const placeholderOf = (f: FieldSpec): string | undefined => (f.name === 'name' ? '@ for the domain itself' : f.default !== undefined && f.default !== '' ? String(f.default) : undefined);

/** One field of the type's schema: JSON in a text area, the rest in an input. */
function RecordField({ f, value, errors, onChange }: { f: FieldSpec; value: string; errors: string[] | undefined; onChange: (value: string) => void }) {
  return (
    <Field label={labelOf(f)} hint={hintOf(f)} errors={errors} required={f.required}>
      {(p) =>
        f.kind === 'json' ? (
          <textarea {...p} name={f.name} rows={3} spellCheck={false} placeholder={placeholderOf(f)} value={value} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input
            {...p}
            name={f.name}
            inputMode={f.kind === 'integer' ? 'numeric' : undefined}
            maxLength={f.maxLength}
            autoComplete="off"
            placeholder={placeholderOf(f)}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}

export function RecordForm({ spec, initial, label, submitLabel, onSubmit, onCancel, before }: {
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
  const initialSteering = steeringInput(initial?.steering as Steering | undefined);
  const [steering, setSteering] = useState<SteeringInput>(initialSteering);
  const checks = useLoad(() => api.all<HealthCheck>('/v1/healthchecks?limit=500'), []);
  const form = useSubmit<void>(
    [...spec.fields.map((f) => f.name), 'steering'],
    () => {
      if (initial) return;
      setValues(Object.fromEntries(spec.fields.map((f) => [f.name, ''])));
      setSteering(steeringInput(undefined));
    },
  );
  // Another type chosen: its own empty fields, so values typed for one type do not leak into another's. Reset
  // here rather than by remounting the form, which would take the keyboard focus away from the type's select.
  const [shownType, setShownType] = useState(spec.type);
  if (shownType !== spec.type) {
    setShownType(spec.type);
    setValues(start());
    form.clear();
  }
  // An edit sends only what changed (PATCH); a new record sends what was filled in.
  const submit = form.submitWith(() => {
    const changed = initial ? new Set(spec.fields.filter((f) => values[f.name] !== toText(initial[f.name])).map((f) => f.name)) : undefined;
    const body = bodyOf(spec.fields, values, changed);
    // Steering goes when it changed (an edit) or was filled in (a new record); null takes it off.
    const next = steeringOf(steering);
    if (initial ? JSON.stringify(steering) !== JSON.stringify(initialSteering) : next !== null) body.steering = next;
    return onSubmit(body);
  });

  return (
    <form onSubmit={submit} noValidate aria-label={label} className="grid-form">
      <ErrorSummary messages={form.general} />
      {before}
      {spec.fields.map((f) => (
        <RecordField key={f.name} f={f} value={values[f.name] ?? ''} errors={form.byField[f.name]} onChange={(text) => setValues((v) => ({ ...v, [f.name]: text }))} />
      ))}
      <SteeringFields input={steering} checks={checks.data ?? []} errors={form.byField.steering} onChange={setSteering} />
      <div className="actions">
        <button type="submit" className="primary" disabled={form.busy}>
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
