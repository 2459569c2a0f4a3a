/** TSIG keys: DNS UPDATE and signed transfers for tools such as nsupdate, certbot or external-dns; a new key's secret is shown once. */
import { useState } from 'react';
import { api, type Domain, type Mirror, type NewTsigKey, type TsigKey, type UpdateScope } from '../api';
import { useLoad, useReadsOnly, useRowActions } from '../hooks';
import { ColumnHeads, ConfirmButton, ErrorSummary, ReadsOnlyNotice, when } from '../ui';
import { CreateTsigKey } from './CreateTsigKey';
import { TsigKeySecret } from './TsigKeySecret';

function scopeText(u: UpdateScope): string {
  if (u === false) return 'no updates';
  if (u === true) return 'any name and type';
  return [`names: ${u.names?.join(', ') ?? 'any'}`, `types: ${u.types?.join(', ') ?? 'any'}`].join('; ');
}

/** The keys; with `onDelete` null (a viewer) without the column of buttons. */
function TsigKeyTable({ keys, zoneName, onDelete }: { keys: TsigKey[]; zoneName: (id: number) => string; onDelete: ((k: TsigKey) => Promise<void>) | null }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Your TSIG keys</caption>
        <ColumnHeads labels={['Name', 'Algorithm', 'Domains', 'DNS UPDATE', 'Transfers', 'Created']} actions={onDelete !== null} />
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <th scope="row">
                <code>{k.name}</code>
              </th>
              <td>{k.algorithm}</td>
              <td>{k.domains.length ? k.domains.map(zoneName).join(', ') : 'none'}</td>
              <td>{scopeText(k.update)}</td>
              <td>{k.transfer ? 'yes' : 'no'}</td>
              <td>{when(k.created)}</td>
              {onDelete ? (
                <td className="row-actions">
                  <ConfirmButton label="Delete" question={`Delete the key “${k.name}”? Messages signed with it are refused from now on.`} confirmLabel="Yes, delete" onConfirm={() => onDelete(k)} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TsigKeys() {
  const { data, error, reload } = useLoad(() => api.all<TsigKey>('/v1/tsigkeys?limit=500'), []);
  const zones = useLoad(
    async () => [...(await api.all<Domain>('/v1/domains?limit=500')), ...(await api.all<Mirror>('/v1/zonemirrors?limit=500'))].sort((a, b) => a.id - b.id),
    [],
  );
  const [created, setCreated] = useState<NewTsigKey | null>(null);
  const rows = useRowActions(reload);
  const readsOnly = useReadsOnly();
  const zoneName = (id: number) => zones.data?.find((z) => z.id === id)?.domain ?? `#${id}`;

  return (
    <section>
      <h1 tabIndex={-1}>TSIG keys</h1>
      <p>
        TSIG keys sign DNS messages: dynamic updates (nsupdate, certbot, external-dns, cert-manager) and zone transfers. Each key acts only on the domains
        chosen for it, and only on the names and types its scope allows. Its secret is shown once, when the key is created.
      </p>
      <ErrorSummary messages={[error?.detail, zones.error?.detail, ...rows.errors].filter((m): m is string => !!m)} />
      {created ? <TsigKeySecret created={created} zone={created.domains.length ? zoneName(created.domains[0] as number) : 'example.com'} onDone={() => setCreated(null)} /> : null}
      {data ? (
        data.length === 0 ? (
          <p>No TSIG keys yet.</p>
        ) : (
          <TsigKeyTable keys={data} zoneName={zoneName} onDelete={readsOnly ? null : (k) => rows.run(() => api.del(`/v1/tsigkeys/${k.id}`))} />
        )
      ) : null}
      {readsOnly ? (
        <ReadsOnlyNotice what="the TSIG keys" />
      ) : (
        <>
          <h2>Create a TSIG key</h2>
          <CreateTsigKey
            zones={zones.data ?? []}
            onCreated={(k) => {
              setCreated(k);
              reload();
            }}
          />
        </>
      )}
    </section>
  );
}
