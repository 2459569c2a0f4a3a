/**
 * Signing in: the user name and password (and the authenticator's code when the user has two-factor sign-in
 * on), or a passkey instead, buy this browser tab an expiring API key.
 */
import { startAuthentication } from '@simplewebauthn/browser';
import { useEffect, useState } from 'react';
import { api, createKey, PROBLEM_TYPES, type PasskeySession, type Session } from '../api';
import { useSubmit } from '../hooks';
import { ErrorSummary, Field } from '../ui';

/** How long a panel session's key lives, in hours: a working day. */
const SESSION_HOURS = 12;

const sessionLabel = (how: string) => `control panel (${navigator.userAgent.includes('Mobile') ? 'mobile ' : ''}browser${how})`;

/** Signs in with a passkey of this site: the browser asks which one, and for its PIN or fingerprint. */
async function passkeySession(): Promise<Session> {
  const optionsJSON = await api.post<Parameters<typeof startAuthentication>[0]['optionsJSON']>('/v1/sign-in/passkey/options', {});
  const response = await startAuthentication({ optionsJSON });
  const k = await api.post<PasskeySession>('/v1/sign-in/passkey', { response, label: sessionLabel(', passkey'), expires: SESSION_HOURS });
  return { key: k.key, keyId: k.id, username: k.username };
}

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  // The server said this user needs a code: the form asks for it from then on.
  const [needsCode, setNeedsCode] = useState(false);
  const form = useSubmit<Session>(['username', 'password', 'otp'], onSignedIn);
  const { byField, general } = form;
  const codeAsked = form.problem?.type === PROBLEM_TYPES.otpRequired;
  useEffect(() => {
    if (codeAsked) setNeedsCode(true);
  }, [codeAsked]);

  const submit = form.submitWith(async () => {
    // Signing in is creating a labelled, expiring API key; signing out revokes it.
    const k = await createKey(username, password, sessionLabel(''), SESSION_HOURS, { session: true, ...(needsCode && otp ? { otp } : {}) });
    return { key: k.key, keyId: k.id, username };
  });
  // The browser's own refusal (cancelled, no passkey for this site) shows as its message.
  const withPasskey = () => void form.run(passkeySession);

  return (
    <section className="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      <p>Sign in with your zonehost user name and password, or with a passkey. The panel gets an API key for this browser tab that expires after {SESSION_HOURS} hours.</p>
      <form onSubmit={submit} noValidate aria-label="Sign in">
        {codeAsked ? (
          <p className="notice" role="status">
            Two-factor sign-in is on for this user: enter the code from your authenticator app.
          </p>
        ) : (
          <ErrorSummary messages={general} />
        )}
        <Field label="User name" errors={byField.username} required>
          {(p) => <input {...p} name="username" autoComplete="username webauthn" value={username} onChange={(e) => setUsername(e.target.value)} />}
        </Field>
        <Field label="Password" errors={byField.password} required>
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
        </Field>
        {needsCode ? (
          <Field
            label="Code"
            hint="Two-factor sign-in is on: the six digits your authenticator app shows now, or one of your recovery codes."
            errors={codeAsked ? [] : byField.otp}
            required
          >
            {(p) => <input {...p} name="otp" autoComplete="one-time-code" inputMode="text" value={otp} onChange={(e) => setOtp(e.target.value)} autoFocus />}
          </Field>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={form.busy}>
            Sign in
          </button>
          <button type="button" disabled={form.busy} onClick={withPasskey}>
            Sign in with a passkey
          </button>
        </div>
      </form>
    </section>
  );
}
