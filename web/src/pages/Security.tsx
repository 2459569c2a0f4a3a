/**
 * The security page: two-factor sign-in (TOTP, its QR code drawn here, the recovery codes shown once), passkeys,
 * the password, and the account's rule that every member have a second factor.
 */
import { startRegistration } from '@simplewebauthn/browser';
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { api, type Passkey } from '../api';
import { useLoad, useRowActions, useSubmit } from '../hooks';
import { ColumnHeads, ConfirmButton, CopyOrHide, ErrorSummary, Field, when } from '../ui';

interface TotpStatus {
  enabled: boolean;
  recovery_codes_left: number;
}

/** The otpauth:// URI as a QR code, drawn in the browser (the secret never leaves it for an image service). */
function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState('');
  useEffect(() => {
    void QRCode.toDataURL(uri, { margin: 2, width: 220 }).then(setSrc);
  }, [uri]);
  return src ? <img className="qr" src={src} width={220} height={220} alt="QR code of the secret, for an authenticator app" /> : null;
}

/** The recovery codes, shown only this once. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div className="new-key" role="status">
      <p>Two-factor sign-in is on. Your recovery codes, shown only this once: each signs you in once without the app. Keep them apart from your password.</p>
      <ul aria-label="Recovery codes" className="codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <CopyOrHide text={codes.join('\n')} copyLabel="Copy codes" onDone={onDone} />
    </div>
  );
}

/** Setting up: the secret as a QR code and as text, and the first code that turns it on. */
function TotpSetUp({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const [setup, setSetup] = useState<{ secret: string; uri: string } | null>(null);
  const [code, setCode] = useState('');
  const start = useSubmit<{ secret: string; uri: string }>([], setSetup);
  const confirm = useSubmit<{ recovery_codes: string[] }>(['code'], (r) => onEnabled(r.recovery_codes));
  if (!setup) {
    return (
      <div>
        <ErrorSummary messages={start.general} />
        <button type="button" className="primary" disabled={start.busy} onClick={() => void start.run(() => api.post('/v1/me/totp', {}))}>
          Set up two-factor sign-in
        </button>
      </div>
    );
  }
  return (
    <form aria-label="Turn on two-factor sign-in" noValidate onSubmit={confirm.submitWith(() => api.post('/v1/me/totp/confirm', { code }))}>
      <p>Scan the QR code with an authenticator app (or type the secret into it), then enter the six digits it shows.</p>
      <QrCode uri={setup.uri} />
      <p>
        Secret: <code aria-label="TOTP secret">{setup.secret}</code>
      </p>
      <ErrorSummary messages={confirm.general} />
      <Field label="Code from the app" errors={confirm.byField.code} required>
        {(p) => <input {...p} name="code" autoComplete="one-time-code" inputMode="numeric" value={code} onChange={(e) => setCode(e.target.value)} />}
      </Field>
      <button type="submit" className="primary" disabled={confirm.busy}>
        Turn on
      </button>
    </form>
  );
}

function TotpOff({ left, onDisabled }: { left: number; onDisabled: () => void }) {
  const [code, setCode] = useState('');
  const off = useSubmit<void>(['code'], onDisabled);
  return (
    <form aria-label="Turn off two-factor sign-in" noValidate onSubmit={off.submitWith(() => api.del('/v1/me/totp', { code }))}>
      <p>
        Two-factor sign-in is <strong>on</strong>. Recovery codes left: {left}.
      </p>
      <ErrorSummary messages={off.general} />
      <Field label="Code to turn it off" hint="The app's current code, or a recovery code." errors={off.byField.code} required>
        {(p) => <input {...p} name="off-code" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />}
      </Field>
      <button type="submit" className="danger" disabled={off.busy}>
        Turn off
      </button>
    </form>
  );
}

/** `onFactor`: a second factor was set up (the panel opens again where the account requires one). */
function TotpSection({ onFactor }: { onFactor: () => void }) {
  const { data, error, reload } = useLoad(() => api.get<TotpStatus>('/v1/me/totp'), []);
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <section aria-labelledby="totp-h">
      <h2 id="totp-h">Two-factor sign-in (TOTP)</h2>
      <ErrorSummary messages={error ? [error.detail] : []} />
      {codes ? <RecoveryCodes codes={codes} onDone={() => setCodes(null)} /> : null}
      {data && !data.enabled ? (
        <TotpSetUp
          onEnabled={(c) => {
            setCodes(c);
            reload();
            onFactor();
          }}
        />
      ) : null}
      {data?.enabled ? <TotpOff left={data.recovery_codes_left} onDisabled={reload} /> : null}
    </section>
  );
}

function PasskeySection({ onFactor }: { onFactor: () => void }) {
  const { data, error, reload } = useLoad(() => api.get<Passkey[]>('/v1/me/passkeys'), []);
  const [name, setName] = useState('');
  const add = useSubmit<Passkey>(['name', 'response'], () => {
    setName('');
    reload();
    onFactor();
  });
  const rows = useRowActions(reload);
  const register = async () => {
    const optionsJSON = await api.post<Parameters<typeof startRegistration>[0]['optionsJSON']>('/v1/me/passkeys/options', {});
    const response = await startRegistration({ optionsJSON });
    return api.post<Passkey>('/v1/me/passkeys', { response, ...(name.trim() ? { name: name.trim() } : {}) });
  };
  return (
    <section aria-labelledby="passkeys-h">
      <h2 id="passkeys-h">Passkeys</h2>
      <p>A passkey signs you in instead of your password and code: your device asks for its PIN, fingerprint or face.</p>
      <ErrorSummary messages={[...(error ? [error.detail] : []), ...rows.errors]} />
      {data?.length ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Your passkeys</caption>
            <ColumnHeads labels={['Name', 'Added', 'Last used']} actions />
            <tbody>
              {data.map((p) => (
                <tr key={p.id}>
                  <th scope="row">{p.name}</th>
                  <td>{when(p.created)}</td>
                  <td>{when(p.last_used, 'never')}</td>
                  <td className="row-actions">
                    <ConfirmButton
                      label="Remove"
                      ariaLabel={`Remove passkey ${p.name}`}
                      question={`Remove the passkey “${p.name}”? It no longer signs you in.`}
                      confirmLabel="Yes, remove"
                      onConfirm={() => rows.run(() => api.del(`/v1/me/passkeys/${p.id}`))}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : data ? (
        <p>You have no passkeys yet.</p>
      ) : null}
      <form aria-label="Add a passkey" noValidate onSubmit={add.submitWith(register)}>
        <ErrorSummary messages={add.general} />
        <Field label="Passkey name" hint="To recognise it by, e.g. laptop or phone." errors={add.byField.name}>
          {(p) => <input {...p} name="passkey-name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={add.busy}>
          Add a passkey
        </button>
      </form>
    </section>
  );
}

function PasswordSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState('');
  const change = useSubmit<{ sessions_revoked: number }>(['current', 'new'], (r) => {
    setCurrent('');
    setNext('');
    setDone(`Your password is changed. ${r.sessions_revoked === 1 ? 'One other panel session was' : `${r.sessions_revoked} other panel sessions were`} signed out; your API keys keep working.`);
  });
  return (
    <section aria-labelledby="password-h">
      <h2 id="password-h">Password</h2>
      {done ? (
        <p className="notice" role="status">
          {done}
        </p>
      ) : null}
      <form aria-label="Change your password" noValidate onSubmit={change.submitWith(() => (setDone(''), api.put('/v1/me/password', { current, new: next })))}>
        <ErrorSummary messages={change.general} />
        <Field label="Current password" errors={change.byField.current} required>
          {(p) => <input {...p} name="current" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />}
        </Field>
        <Field label="New password" hint="Changing it signs out your other panel sessions." errors={change.byField.new} required>
          {(p) => <input {...p} name="new" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />}
        </Field>
        <button type="submit" disabled={change.busy}>
          Change password
        </button>
      </form>
    </section>
  );
}

function AccountSection() {
  const { data, reload } = useLoad(() => api.get<{ require_2fa: boolean }>('/v1/account'), []);
  const save = useSubmit<unknown>(['require_2fa'], reload);
  if (!data) return null;
  const toggle = (on: boolean) => void save.run(() => api.patch('/v1/account', { require_2fa: on }));
  return (
    <section aria-labelledby="account-h">
      <h2 id="account-h">Account</h2>
      <ErrorSummary messages={[...save.general, ...(save.byField.require_2fa ?? [])]} />
      <label className="check">
        <input type="checkbox" name="require_2fa" checked={data.require_2fa} disabled={save.busy} onChange={(e) => toggle(e.target.checked)} /> Require a second factor (TOTP or a passkey) of every
        member
      </label>
    </section>
  );
}

export function Security({ setupRequired, onFactor }: { setupRequired: boolean; onFactor: () => void }) {
  return (
    <section>
      <h1 tabIndex={-1}>Security</h1>
      {setupRequired ? (
        <p className="notice" role="alert">
          This account requires a second factor: set up two-factor sign-in or add a passkey. Until then the rest of the panel is closed to you.
        </p>
      ) : null}
      <TotpSection onFactor={onFactor} />
      <PasskeySection onFactor={onFactor} />
      <PasswordSection />
      <AccountSection />
    </section>
  );
}
