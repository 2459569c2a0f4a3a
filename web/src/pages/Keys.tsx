/** API keys: the account's keys with their scopes, a new key (shown once, optionally scoped) and revocation. */
import { useState } from 'react';
import { api, revokeKey, type ApiKey, type Domain, type KeyScope, type NewKey, type Session } from '../api';
import { useLoad, useRowActions } from '../hooks';
import { ColumnHeads, ConfirmButton, CopyOrHide, ErrorSummary, when } from '../ui';
import { CreateApiKey } from './CreateApiKey';
import { DoorUrls } from './DoorUrls';

/** A key's scope in a few words, for the table. */
function describeScope(scope: KeyScope, names: Map<number, string>): string {
  const parts: string[] = [];
  if (scope.domains) parts.push(`domains: ${scope.domains.map((id) => names.get(id) ?? `#${id}`).join(', ')}`);
  if (scope.read_only) parts.push('read-only');
  if (scope.records) {
    const r = scope.records;
    parts.push(`records only${r.names ? ` at ${r.names.join(', ')}` : ''}${r.types ? ` of type ${r.types.join(', ')}` : ''}`);
  }
  if (scope.subnets) parts.push(`from ${scope.subnets.join(', ')}`);
  return parts.length ? parts.join('; ') : 'everything';
}

/** The key just created, shown this once. */
function NewApiKey({ created, onDone }: { created: NewKey; onDone: () => void }) {
  return (
    <div className="new-key" role="status">
      <p>
        New key <strong>{created.label || '(no label)'}</strong>, shown only this once — copy it now:
      </p>
      <code aria-label="The new API key">{created.key}</code>
      <CopyOrHide text={created.key} copyLabel="Copy key" onDone={onDone} />
    </div>
  );
}

function KeyTable({ keys, sessionKeyId, zoneNames, onRevoke }: { keys: ApiKey[]; sessionKeyId: number; zoneNames: Map<number, string>; onRevoke: (k: ApiKey) => Promise<void> | void }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Your API keys</caption>
        <ColumnHeads labels={['Label', 'Starts with', 'May do', 'Created', 'Expires']} actions />
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <th scope="row">
                {k.label || '(no label)'}
                {k.id === sessionKeyId ? <span className="badge pending"> this session</span> : null}
              </th>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{describeScope(k.scope, zoneNames)}</td>
              <td>{when(k.created)}</td>
              <td>{when(k.expires, 'never')}</td>
              <td className="row-actions">
                <ConfirmButton
                  label="Revoke"
                  question={k.id === sessionKeyId ? 'Revoke the key of this session? You will be signed out.' : `Revoke the key “${k.label || k.prefix}”? Scripts using it stop working.`}
                  confirmLabel="Yes, revoke"
                  onConfirm={() => onRevoke(k)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Keys({ session, onOwnKeyRevoked }: { session: Session; onOwnKeyRevoked: () => void }) {
  const { data, error, reload } = useLoad(() => api.all<ApiKey>('/v1/keys?limit=500'), []);
  const zones = useLoad(async () => [...(await api.all<Domain>('/v1/domains?limit=500')), ...(await api.all<Domain>('/v1/zonemirrors?limit=500'))], []);
  const zoneNames = new Map((zones.data ?? []).map((d) => [d.id, d.domain]));
  const [created, setCreated] = useState<NewKey | null>(null);
  const rows = useRowActions(reload);
  // Revoking this session's own key is signing out.
  const revoke = (k: ApiKey) => (k.id === session.keyId ? onOwnKeyRevoked() : rows.run(() => revokeKey(k.id)));

  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
      <p>Keys let scripts use the APIs as you, each key on every one of them within its scope. The server keeps only a hash: a key is shown once, when it is created.</p>
      <DoorUrls />
      <ErrorSummary messages={[error?.detail, ...rows.errors].filter((m): m is string => !!m)} />
      {created ? <NewApiKey created={created} onDone={() => setCreated(null)} /> : null}
      {data ? <KeyTable keys={data} sessionKeyId={session.keyId} zoneNames={zoneNames} onRevoke={revoke} /> : null}
      <h2>Create a key</h2>
      <CreateApiKey
        session={session}
        zones={zones.data}
        onCreated={(k) => {
          setCreated(k);
          reload();
        }}
      />
    </section>
  );
}
