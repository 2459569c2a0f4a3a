/**
 * The panel's frame: the session, the navigation and hash routes (#/domains, #/domains/3, #/mirrors,
 * #/keys, #/tsigkeys). Hash routes keep every page at /manager/, so the server needs no fallback route.
 */
import { useEffect, useRef, useState } from 'react';
import { loadSession, revokeKey, saveSession, setUnauthorisedHandler, type Session } from './api';
import { DomainPage } from './pages/DomainPage';
import { Domains } from './pages/Domains';
import { Keys } from './pages/Keys';
import { Mirrors } from './pages/Mirrors';
import { SignIn } from './pages/SignIn';
import { TsigKeys } from './pages/TsigKeys';

type Route = { page: 'domains' } | { page: 'domain'; id: number } | { page: 'mirrors' } | { page: 'keys' } | { page: 'tsigkeys' };

function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'domains' && parts[1] && /^\d+$/.test(parts[1])) return { page: 'domain', id: Number(parts[1]) };
  if (parts[0] === 'mirrors') return { page: 'mirrors' };
  if (parts[0] === 'keys') return { page: 'keys' };
  if (parts[0] === 'tsigkeys') return { page: 'tsigkeys' };
  return { page: 'domains' };
}

export const go = (hash: string): void => {
  window.location.hash = hash;
};

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  const [notice, setNotice] = useState('');
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    setUnauthorisedHandler(() => {
      saveSession(null);
      setSession(null);
      setNotice('Your session has ended (the key expired or was revoked). Please sign in again.');
    });
  }, []);

  // A new page gets focus at its start, so keyboard and screen-reader users begin there.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [route, session]);

  const signIn = (s: Session) => {
    saveSession(s);
    setSession(s);
    setNotice('');
  };
  const signOut = async () => {
    // The key is revoked on the server, not just forgotten here.
    if (session) await revokeKey(session.keyId, session.key).catch(() => undefined);
    saveSession(null);
    setSession(null);
    setNotice('You have signed out.');
  };

  const current = (page: Route['page'] | 'domain') => (route.page === page || (page === 'domains' && route.page === 'domain') ? 'page' : undefined);

  return (
    <>
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.querySelector<HTMLElement>('h1')?.focus())}>
        Skip to content
      </a>
      <header className="top">
        <span className="brand">zonehost</span>
        {session ? (
          <nav aria-label="Main">
            <a href="#/domains" aria-current={current('domains')}>
              Domains
            </a>
            <a href="#/mirrors" aria-current={current('mirrors')}>
              Zone mirrors
            </a>
            <a href="#/keys" aria-current={current('keys')}>
              API keys
            </a>
            <a href="#/tsigkeys" aria-current={current('tsigkeys')}>
              TSIG keys
            </a>
            <span className="who">{session.username}</span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </nav>
        ) : null}
      </header>
      <main id="main" ref={main}>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        {!session ? (
          <SignIn onSignedIn={signIn} />
        ) : route.page === 'domain' ? (
          <DomainPage key={route.id} id={route.id} />
        ) : route.page === 'mirrors' ? (
          <Mirrors />
        ) : route.page === 'keys' ? (
          <Keys session={session} onOwnKeyRevoked={signOut} />
        ) : route.page === 'tsigkeys' ? (
          <TsigKeys />
        ) : (
          <Domains />
        )}
      </main>
    </>
  );
}
