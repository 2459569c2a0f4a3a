/** A domain's DNSSEC: on/off with the algorithm, the DS record to give the registrar, the keys' states, rollovers. */
import { useEffect, useState } from 'react';
import { api, type Dnssec as DnssecState, type DnssecAlgorithm, type DnssecKey } from '../api';
import { useLoad, useSubmit } from '../hooks';
import { ColumnHeads, ErrorSummary, Field, when } from '../ui';

// The algorithms interface B accepts; the first is its default.
const ALGORITHMS: { value: DnssecAlgorithm; label: string }[] = [
  { value: 'ECDSAP256SHA256', label: 'ECDSA P-256 with SHA-256 (13)' },
  { value: 'ED25519', label: 'Ed25519 (15)' },
];

const STATUS_TEXT: Record<DnssecState['status'], string> = {
  signed: 'signed',
  unsigning: 'turning off',
  off: 'off',
};

const KEY_STATE_TEXT: Record<DnssecKey['state'], string> = {
  incoming: 'published and signing; not yet the key the registrar should name',
  active: 'the key the DS at the registrar should name',
  retiring: 'replaced; kept until the old DS has expired',
};

const STATE_EXPLAINED: Record<DnssecState['status'], string> = {
  signed: 'The zone is signed. Give your registrar the DS record of the active key; after a rollover, replace it with the new one.',
  unsigning:
    'DNSSEC is being turned off: the zone asks its parent to remove the DS record (CDS/CDNSKEY delete) and stays signed until the old DS has expired. Remove the DS record at your registrar now.',
  off: 'The zone is not signed. Turn DNSSEC on, then give your registrar the DS record shown here.',
};

const BADGE: Record<DnssecState['status'], string> = { signed: 'active', off: 'inactive', unsigning: 'pending' };

interface ControlsProps {
  state: DnssecState;
  algorithm: DnssecAlgorithm;
  onAlgorithm: (a: DnssecAlgorithm) => void;
  onEnabled: (enabled: boolean) => void;
  busy: boolean;
  errors: string[] | undefined;
}

/** The algorithm and the switch that signs the zone. */
function DnssecControls({ state, algorithm, onAlgorithm, onEnabled, busy, errors }: ControlsProps) {
  return (
    <div className="grid-form">
      <Field label="Algorithm" errors={errors} hint={state.status === 'off' ? 'Used for the first key' : 'Choosing another one and starting a rollover changes it'}>
        {(p) => (
          <select {...p} name="algorithm" value={algorithm} disabled={busy} onChange={(e) => onAlgorithm(e.target.value as DnssecAlgorithm)}>
            {ALGORITHMS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="field">
        <label>
          <input type="checkbox" name="dnssec" checked={state.enabled} disabled={busy} onChange={(e) => onEnabled(e.target.checked)} /> Sign this zone (DNSSEC)
        </label>
      </div>
    </div>
  );
}

/** The DS records of the active keys, for the registrar. */
function DsRecords({ active }: { active: DnssecKey[] }) {
  const records = active.flatMap((k) => k.ds);
  return (
    <div className="new-key">
      <p>DS record for your registrar:</p>
      {records.map((ds) => (
        <code key={ds} aria-label="DS record">
          {ds}
        </code>
      ))}
      <div className="actions">
        <button type="button" onClick={() => navigator.clipboard?.writeText(records.join('\n'))}>
          Copy DS record
        </button>
      </div>
    </div>
  );
}

function SigningKeys({ keys }: { keys: DnssecKey[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Signing keys</caption>
        <ColumnHeads labels={['Key tag', 'Algorithm', 'State', 'Created']} />
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <td>{k.key_tag}</td>
              <td>{k.algorithm}</td>
              <td>
                {k.state} <span className="hint">({KEY_STATE_TEXT[k.state]})</span>
              </td>
              <td>{when(k.created)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The DNSSEC state, fetched again when the key schedule's next timed step is due, so the states move on screen. */
function useDnssecState(domainId: number) {
  const { data, error } = useLoad(() => api.get<DnssecState>(`/v1/domains/${domainId}/dnssec`), [domainId]);
  const [current, setCurrent] = useState<DnssecState | null>(null);
  const state = current ?? data;
  useEffect(() => {
    if (!state?.next_step) return;
    const wait = Math.max(1000, Math.min(60_000, new Date(state.next_step).getTime() - Date.now() + 500));
    const t = setTimeout(() => {
      api.get<DnssecState>(`/v1/domains/${domainId}/dnssec`).then(setCurrent, () => {});
    }, wait);
    return () => clearTimeout(t);
  }, [state?.next_step, domainId]);
  return { state, error, setCurrent };
}

/** A viewer (`readsOnly`) sees the state, keys and DS records without the controls that change them. */
export function Dnssec({ domainId, readsOnly }: { domainId: number; readsOnly: boolean }) {
  const { state, error, setCurrent } = useDnssecState(domainId);
  const [algorithm, setAlgorithm] = useState<DnssecAlgorithm>('ECDSAP256SHA256');
  const change = useSubmit<DnssecState>(['algorithm'], setCurrent);

  useEffect(() => {
    if (state?.algorithm) setAlgorithm(state.algorithm);
  }, [state?.algorithm]);

  const setEnabled = (enabled: boolean) => change.run(() => api.put<DnssecState>(`/v1/domains/${domainId}/dnssec`, enabled ? { enabled, algorithm } : { enabled }));
  const rollover = () => change.run(() => api.post<DnssecState>(`/v1/domains/${domainId}/dnssec/rollover`, state?.algorithm === algorithm ? {} : { algorithm }));

  const active = state?.keys.filter((k) => k.state === 'active') ?? [];
  const rolling = state?.keys.some((k) => k.state !== 'active') ?? false;

  return (
    <section className="panel-box" aria-labelledby="dnssec-heading">
      <h2 id="dnssec-heading">DNSSEC {state ? <span className={`badge ${BADGE[state.status]}`}>{STATUS_TEXT[state.status]}</span> : null}</h2>
      <ErrorSummary messages={[error?.detail, ...change.general].filter((m): m is string => !!m)} />
      {!state ? (
        <p>Loading…</p>
      ) : (
        <>
          <p>{STATE_EXPLAINED[state.status]}</p>
          {readsOnly ? null : <DnssecControls state={state} algorithm={algorithm} onAlgorithm={setAlgorithm} onEnabled={(on) => void setEnabled(on)} busy={change.busy} errors={change.byField.algorithm} />}
          {active.length > 0 && state.status === 'signed' ? <DsRecords active={active} /> : null}
          {state.keys.length > 0 ? <SigningKeys keys={state.keys} /> : null}
          {state.next_step ? <p>Next step of the key schedule: {when(state.next_step)}.</p> : null}
          {state.status === 'signed' && !readsOnly ? (
            <div className="actions">
              <button type="button" disabled={change.busy || rolling} onClick={() => void rollover()}>
                {state.algorithm === algorithm ? 'Start key rollover' : `Start rollover to ${algorithm}`}
              </button>
              {rolling ? <span> A rollover is under way.</span> : null}
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
