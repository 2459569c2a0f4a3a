import { useState, type FormEvent } from 'react';
import { createKey, type Problem, type Session } from '../api';
import { ErrorSummary, Field, problemOf, splitProblem } from '../ui';

/** How long a panel session's key lives, in hours: a working day. */
const SESSION_HOURS = 12;

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const { byField, general } = splitProblem(problem, ['username', 'password']);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      // Signing in is creating a labelled, expiring API key; signing out revokes it.
      const k = await createKey(username, password, `control panel (${navigator.userAgent.includes('Mobile') ? 'mobile ' : ''}browser)`, SESSION_HOURS);
      onSignedIn({ key: k.key, keyId: k.id, username });
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  }

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
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </section>
  );
}
