/** Signing in: the user name and password buy this browser tab an expiring API key. */
import { useState } from 'react';
import { createKey, type Session } from '../api';
import { useSubmit } from '../hooks';
import { ErrorSummary, Field } from '../ui';

/** How long a panel session's key lives, in hours: a working day. */
const SESSION_HOURS = 12;

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const form = useSubmit<Session>(['username', 'password'], onSignedIn);
  const { byField, general } = form;

  const submit = form.submitWith(async () => {
    // Signing in is creating a labelled, expiring API key; signing out revokes it.
    const k = await createKey(username, password, `control panel (${navigator.userAgent.includes('Mobile') ? 'mobile ' : ''}browser)`, SESSION_HOURS);
    return { key: k.key, keyId: k.id, username };
  });

  return (
    <section className="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      <p>Sign in with your zonehost user name and password. The panel gets an API key for this browser tab that expires after {SESSION_HOURS} hours.</p>
      <form onSubmit={submit} noValidate aria-label="Sign in">
        <ErrorSummary messages={general} />
        <Field label="User name" errors={byField.username} required>
          {(p) => <input {...p} name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} />}
        </Field>
        <Field label="Password" errors={byField.password} required>
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={form.busy}>
          Sign in
        </button>
      </form>
    </section>
  );
}
