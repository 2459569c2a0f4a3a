/** API keys: the account's keys, a new key (shown once) and revocation. */
import { useState, type FormEvent } from 'react';
import { api, createKey, revokeKey, type ApiKey, type NewKey, type Problem, type Session } from '../api';
import { ConfirmButton, ErrorSummary, Field, problemOf, splitProblem, useLoad, when } from '../ui';

const EXPIRY_CHOICES: [number, string][] = [
  [24, '1 day'],
  [168, '1 week'],
  [720, '30 days'],
  [8760, '1 year'],
  [0, 'never'],
];

export function Keys({ session, onOwnKeyRevoked }: { session: Session; onOwnKeyRevoked: () => void }) {
  const { data, error, reload } = useLoad(() => api.all<ApiKey>('/v1/keys?limit=500'), []);
  const [label, setLabel] = useState('');
  const [expires, setExpires] = useState('168');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [created, setCreated] = useState<NewKey | null>(null);
  const [rowError, setRowError] = useState('');
  const { byField, general } = splitProblem(problem, ['label', 'expires', 'password']);

  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      // Creating a key takes the password again: a stolen panel session cannot mint long-lived keys.
      setCreated(await createKey(session.username, password, label, Number(expires)));
      setProblem(null);
      setPassword('');
      setLabel('');
      reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
      <p>Keys let scripts use the API (both interfaces) as you. The server keeps only a hash: a key is shown once, when it is created.</p>
      <ErrorSummary messages={[error?.detail, rowError].filter((m): m is string => !!m)} />
      {created ? (
        <div className="new-key" role="status">
          <p>
            New key <strong>{created.label || '(no label)'}</strong>, shown only this once — copy it now:
          </p>
          <code aria-label="The new API key">{created.key}</code>
          <div className="actions">
            <button type="button" onClick={() => navigator.clipboard?.writeText(created.key)}>
              Copy key
            </button>
            <button type="button" onClick={() => setCreated(null)}>
              Done, hide it
            </button>
          </div>
        </div>
      ) : null}
      {data ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Starts with</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((k) => (
                <tr key={k.id}>
                  <th scope="row">
                    {k.label || '(no label)'}
                    {k.id === session.keyId ? <span className="badge pending"> this session</span> : null}
                  </th>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{when(k.created)}</td>
                  <td>{when(k.expires, 'never')}</td>
                  <td className="row-actions">
                    <ConfirmButton
                      label="Revoke"
                      question={k.id === session.keyId ? 'Revoke the key of this session? You will be signed out.' : `Revoke the key “${k.label || k.prefix}”? Scripts using it stop working.`}
                      confirmLabel="Yes, revoke"
                      onConfirm={async () => {
                        if (k.id === session.keyId) return onOwnKeyRevoked();
                        try {
                          await revokeKey(k.id);
                          setRowError('');
                        } catch (e) {
                          setRowError(problemOf(e).detail);
                        }
                        reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <h2>Create a key</h2>
      <form onSubmit={submit} noValidate aria-label="Create an API key" className="grid-form">
        <ErrorSummary messages={general} />
        <Field label="Label" errors={byField.label} hint="To recognise the key by, e.g. “deploy script”">
          {(p) => <input {...p} name="label" maxLength={100} value={label} onChange={(e) => setLabel(e.target.value)} autoComplete="off" />}
        </Field>
        <Field label="Expires after" errors={byField.expires}>
          {(p) => (
            <select {...p} name="expires" value={expires} onChange={(e) => setExpires(e.target.value)}>
              {EXPIRY_CHOICES.map(([h, text]) => (
                <option key={h} value={h}>
                  {text}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Your password" errors={byField.password} required hint={`Confirms that it is you (${session.username})`}>
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary">
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}
