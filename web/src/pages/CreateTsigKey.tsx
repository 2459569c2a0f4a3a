/** The form creating a TSIG key: its name, algorithm, domains, DNS UPDATE scope and zone transfers. */
import { useState } from 'react';
import { api, TSIG_ALGORITHMS, type NewTsigKey, type UpdateScope } from '../api';
import { useSubmit } from '../hooks';
import { ErrorSummary, Field, listOf } from '../ui';

type UpdateChoice = 'none' | 'all' | 'limited';

/** The form's fields as typed: domains as the chosen options' values, names and types as lists in text. */
interface TsigKeyInput {
  name: string;
  algorithm: string;
  domains: string[];
  update: UpdateChoice;
  names: string;
  types: string;
  transfer: boolean;
}
const EMPTY: TsigKeyInput = { name: '', algorithm: TSIG_ALGORITHMS[0] as string, domains: [], update: 'none', names: '', types: '', transfer: false };

function bodyOf({ name, algorithm, domains, update, names, types, transfer }: TsigKeyInput) {
  // An empty list is left out: it means "no restriction" on that side.
  const limited = { ...(listOf(names).length ? { names: listOf(names) } : {}), ...(listOf(types).length ? { types: listOf(types) } : {}) };
  const scope: UpdateScope = update === 'none' ? false : update === 'all' ? true : limited;
  return { name: name.trim(), algorithm, domains: domains.map(Number), update: scope, transfer };
}

type SetField = <K extends keyof TsigKeyInput>(name: K, value: TsigKeyInput[K]) => void;

/** What the key may update: nothing, anything, or some names and types. */
function UpdateFields({ input, set, errors }: { input: TsigKeyInput; set: SetField; errors: string[] | undefined }) {
  return (
    <>
      <Field label="DNS UPDATE" errors={errors}>
        {(p) => (
          <select {...p} name="update" value={input.update} onChange={(e) => set('update', e.target.value as UpdateChoice)}>
            <option value="none">none</option>
            <option value="all">any name and type</option>
            <option value="limited">only some names and types</option>
          </select>
        )}
      </Field>
      {input.update === 'limited' ? (
        <>
          <Field label="Names" hint="Relative to the domain: @ is the apex, *.x is x's subtree; e.g. _acme-challenge. Empty: any name.">
            {(p) => <input {...p} name="names" value={input.names} onChange={(e) => set('names', e.target.value)} autoComplete="off" />}
          </Field>
          <Field label="Types" hint="e.g. TXT. Empty: any type.">
            {(p) => <input {...p} name="types" value={input.types} onChange={(e) => set('types', e.target.value)} autoComplete="off" />}
          </Field>
        </>
      ) : null}
    </>
  );
}

export function CreateTsigKey({ zones, onCreated }: { zones: { id: number; domain: string }[]; onCreated: (k: NewTsigKey) => void }) {
  const [input, setInput] = useState<TsigKeyInput>(EMPTY);
  const set: SetField = (name, value) => setInput((i) => ({ ...i, [name]: value }));
  const form = useSubmit<NewTsigKey>(['name', 'algorithm', 'domains', 'update', 'transfer'], (k) => {
    setInput(EMPTY);
    onCreated(k);
  });
  const { byField, general } = form;
  const submit = form.submitWith(() => api.post<NewTsigKey>('/v1/tsigkeys', bodyOf(input)));

  return (
    <form onSubmit={submit} noValidate aria-label="Create a TSIG key" className="grid-form">
      <ErrorSummary messages={general} />
      <Field label="Key name" errors={byField.name} required hint="A DNS name, unique in the whole service, e.g. acme.example.com">
        {(p) => <input {...p} name="name" value={input.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Algorithm" errors={byField.algorithm}>
        {(p) => (
          <select {...p} name="algorithm" value={input.algorithm} onChange={(e) => set('algorithm', e.target.value)}>
            {TSIG_ALGORITHMS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Domains" errors={byField.domains} hint="The domains and zone mirrors the key may act on (Ctrl or Cmd to choose several)">
        {(p) => (
          <select {...p} name="domains" multiple value={input.domains} onChange={(e) => set('domains', [...e.target.selectedOptions].map((o) => o.value))}>
            {zones.map((z) => (
              <option key={z.id} value={String(z.id)}>
                {z.domain}
              </option>
            ))}
          </select>
        )}
      </Field>
      <UpdateFields input={input} set={set} errors={byField.update} />
      <Field label="Zone transfers" errors={byField.transfer} hint="Allow AXFR/IXFR of the key's domains when signed with it">
        {(p) => <input {...p} name="transfer" type="checkbox" checked={input.transfer} onChange={(e) => set('transfer', e.target.checked)} />}
      </Field>
      <div className="actions">
        <button type="submit" className="primary">
          Create TSIG key
        </button>
      </div>
    </form>
  );
}
