import { useState } from 'react';
import { api, type Domain } from '../api';
import { useLoad, useReadsOnly } from '../hooks';
import { go } from '../routes';
import { ColumnHeads, ErrorSummary } from '../ui';
import { DomainForm } from './DomainForm';

export function Domains() {
  const { data, error } = useLoad(() => api.all<Domain>('/v1/domains?limit=500'), []);
  const [search, setSearch] = useState('');
  const readsOnly = useReadsOnly();
  const shown = (data ?? []).filter((d) => d.domain.includes(search.trim().toLowerCase()));

  return (
    <section>
      <h1 tabIndex={-1}>Domains</h1>
      <ErrorSummary messages={error ? [error.detail] : []} />
      <div className="toolbar">
        <label htmlFor="domain-search">Search domains</label>
        <input id="domain-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="part of a name" />
      </div>
      {data === null && !error ? <p>Loading…</p> : null}
      {data && data.length === 0 ? <p>No domains yet: create the first one below.</p> : null}
      {data && data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Your domains</caption>
            <ColumnHeads labels={['Domain', 'Status', 'Default TTL', 'SOA e-mail', 'AXFR allowed']} />
            <tbody>
              {shown.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <a href={`#/domains/${d.id}`}>{d.domain}</a>
                  </th>
                  <td>
                    <span className={`badge ${d.status}`}>{d.status}</span>
                  </td>
                  <td>{d.default_ttl === 0 ? 'default' : d.default_ttl}</td>
                  <td>{d.soa}</td>
                  <td>{d.axfr.length ? d.axfr.join(', ') : 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 ? <p>No domain matches “{search}”.</p> : null}
        </div>
      ) : null}
      {readsOnly ? null : (
        <>
          <h2>Create a domain</h2>
          <DomainForm
            label="Create a domain"
            submitLabel="Create domain"
            onSubmit={async (body) => {
              const d = await api.post<Domain>('/v1/domains', body);
              go(`#/domains/${d.id}`);
            }}
          />
        </>
      )}
    </section>
  );
}
