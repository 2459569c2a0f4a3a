/** An invited member's first visit (#/invitation/TOKEN, signed out): they choose a password, then sign in. */
import { useState } from 'react';
import { api, type Member } from '../api';
import { useSubmit } from '../hooks';
import { ErrorSummary, Field } from '../ui';

export function AcceptInvitation({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [accepted, setAccepted] = useState<Member | null>(null);
  const form = useSubmit<Member>(['password'], setAccepted);
  const submit = form.submitWith(() => api.post<Member>('/v1/invitations', { token, password }));

  if (accepted) {
    return (
      <section className="narrow">
        <h1 tabIndex={-1}>Welcome, {accepted.username}</h1>
        <p role="status">Your password is set. Sign in as {accepted.username}.</p>
        <p>
          <a href="#/domains">Sign in</a>
        </p>
      </section>
    );
  }
  return (
    <section className="narrow">
      <h1 tabIndex={-1}>Accept the invitation</h1>
      <p>Choose the password you will sign in with. The invitation works once, within 7 days of being sent.</p>
      <form onSubmit={submit} noValidate aria-label="Accept the invitation">
        <ErrorSummary messages={form.general} />
        <Field label="New password" errors={form.byField.password} required>
          {(p) => <input {...p} name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={form.busy}>
          Set password
        </button>
      </form>
    </section>
  );
}
