/** The panel's frame: the session, the navigation and the page the hash route names (see routes.ts). */
import { useEffect, useRef, useState } from 'react';
import { loadSession, revokeKey, saveSession, setSetupRequiredHandler, setUnauthorisedHandler, type Session } from './api';
import { AcceptInvitation } from './pages/AcceptInvitation';
import { DomainPage } from './pages/DomainPage';
import { HealthChecks } from './pages/HealthChecks';
import { Domains } from './pages/Domains';
import { Keys } from './pages/Keys';
import { Members } from './pages/Members';
import { Mirrors } from './pages/Mirrors';
import { Security } from './pages/Security';
import { SignIn } from './pages/SignIn';
import { TsigKeys } from './pages/TsigKeys';
import { go, parseRoute, type Route } from './routes';

const NAV: { page: Route['page']; href: string; label: string }[] = [
  { page: 'domains', href: '#/domains', label: 'Domains' },
  { page: 'mirrors', href: '#/mirrors', label: 'Zone mirrors' },
  { page: 'keys', href: '#/keys', label: 'API keys' },
  { page: 'tsigkeys', href: '#/tsigkeys', label: 'TSIG keys' },
  { page: 'members', href: '#/members', label: 'Members' },
  { page: 'security', href: '#/security', label: 'Security' },
  { page: 'healthchecks', href: '#/healthchecks', label: 'Health checks' },
];

function MainNav({ route, session, onSignOut }: { route: Route; session: Session; onSignOut: () => void }) {
  // A domain's page is part of "Domains".
  const current = (page: Route['page']) => (route.page === page || (page === 'domains' && route.page === 'domain') ? 'page' : undefined);
  return (
    <nav aria-label="Main">
      {NAV.map((n) => (
        <a key={n.page} href={n.href} aria-current={current(n.page)}>
          {n.label}
        </a>
      ))}
      <span className="who">{session.username}</span>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </nav>
  );
}

function CurrentPage({ route, session, onSignOut, setup }: { route: Route; session: Session; onSignOut: () => void; setup: SetupState }) {
  // Where the account requires a second factor this user lacks, setting one up is all the panel offers.
  if (setup.required || route.page === 'security') return <Security setupRequired={setup.required} onFactor={setup.done} />;
  switch (route.page) {
    case 'domain':
      return <DomainPage key={route.id} id={route.id} />;
    case 'mirrors':
      return <Mirrors />;
    case 'keys':
      return <Keys session={session} onOwnKeyRevoked={onSignOut} />;
    case 'tsigkeys':
      return <TsigKeys />;
    case 'members':
      return <Members />;
    case 'healthchecks':
      return <HealthChecks />;
    default:
      return <Domains />;
  }
}

/** Whether the account requires a second factor this user has not set up (a 403 of that type said so). */
interface SetupState {
  required: boolean;
  done: () => void;
}

function useSetupRequired(session: Session | null): SetupState {
  const [required, setRequired] = useState(false);
  // A new session (another user, or the same after signing out) finds out afresh.
  useEffect(() => setRequired(false), [session?.key]);
  useEffect(() => {
    setSetupRequiredHandler(() => {
      setRequired(true);
      go('#/security');
    });
  }, []);
  return { required, done: () => setRequired(false) };
}

/** The current hash route, following the browser's hashchange events. */
function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

/** The signed-in session, with sign-in, sign-out and the notice shown when a session ends. */
function useSession() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState('');
  const end = (why: string) => {
    saveSession(null);
    setSession(null);
    setNotice(why);
  };
  useEffect(() => {
    setUnauthorisedHandler(() => end('Your session has ended (the key expired or was revoked). Please sign in again.'));
  }, []);
  const signIn = (s: Session) => {
    saveSession(s);
    setSession(s);
    setNotice('');
  };
  const signOut = async () => {
    // The key is revoked on the server, not just forgotten here.
    if (session) await revokeKey(session.keyId, session.key).catch(() => undefined);
    end('You have signed out.');
  };
  return { session, notice, signIn, signOut };
}

export function App() {
  const { session, notice, signIn, signOut } = useSession();
  const route = useRoute();
  const setup = useSetupRequired(session);
  const main = useRef<HTMLElement>(null);
  const focusStart = () => main.current?.querySelector<HTMLElement>('h1')?.focus();

  // A new page gets focus at its start, so keyboard and screen-reader users begin there.
  useEffect(focusStart, [route, session]);

  return (
    <>
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), focusStart())}>
        Skip to content
      </a>
      <header className="top">
        <span className="brand">zonehost</span>
        {session ? <MainNav route={route} session={session} onSignOut={signOut} /> : null}
      </header>
      <main id="main" ref={main}>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        {route.page === 'invitation' ? (
          // An invitation is for someone not yet signed in (a link opened in this browser while signed in too).
          <AcceptInvitation token={route.token} />
        ) : session ? (
          <CurrentPage route={route} session={session} onSignOut={signOut} setup={setup} />
        ) : (
          <SignIn onSignedIn={signIn} />
        )}
      </main>
    </>
  );
}
