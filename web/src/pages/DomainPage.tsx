/** One domain's page: its query chart, records, DNSSEC, zone file, settings and deletion. */
import { useState } from 'react';
import { api, type Domain } from '../api';
import { useLoad, useRowActions } from '../hooks';
import { go } from '../routes';
import { ConfirmButton, ErrorSummary } from '../ui';
import { Dnssec } from './Dnssec';
import { DomainForm } from './DomainForm';
import { QueryChart } from './QueryChart';
import { Records } from './Records';
import { ZoneFile } from './ZoneFile';

export function DomainPage({ id }: { id: number }) {
  const { data: domain, error } = useLoad(() => api.get<Domain>(`/v1/domains/${id}`), [id]);
  const [current, setCurrent] = useState<Domain | null>(null);
  // After a deletion this page is gone: the list of domains is shown instead of a refresh.
  const deletion = useRowActions(() => go('#/domains'), { refreshAfterFailure: false });
  // Bumped by an import, so the records table loads the records it wrote.
  const [imports, setImports] = useState(0);
  const d = current ?? domain;

  if (error)
    return (
      <section>
        <h1 tabIndex={-1}>Domain not found</h1>
        <ErrorSummary messages={[error.detail]} />
        <p>
          <a href="#/domains">Back to the domains</a>
        </p>
      </section>
    );
  if (!d)
    return (
      <section>
        <h1 tabIndex={-1}>Domain</h1>
        <p>Loading…</p>
      </section>
    );

  return (
    <section>
      <p className="crumbs">
        <a href="#/domains">Domains</a> /
      </p>
      <h1 tabIndex={-1}>
        {d.domain} <span className={`badge ${d.status}`}>{d.status}</span>
      </h1>
      <QueryChart path={`/v1/domains/${id}/queries`} />
      <Records key={imports} domainId={id} domain={d.domain} />
      <Dnssec domainId={id} />
      <ZoneFile domainId={id} domain={d.domain} onImported={() => setImports((n) => n + 1)} />
      <details className="panel-box">
        <summary>Domain settings</summary>
        <DomainForm
          key={JSON.stringify(d)}
          initial={d}
          label="Domain settings"
          submitLabel="Save settings"
          onSubmit={async (body) => setCurrent(await api.patch<Domain>(`/v1/domains/${id}`, body))}
        />
      </details>
      <h2>Delete this domain</h2>
      <p>Deleting removes the domain and all its records; the DNS server stops answering for it at once.</p>
      <ErrorSummary messages={deletion.errors} />
      <ConfirmButton
        label="Delete domain"
        question={`Delete ${d.domain} and all its records?`}
        confirmLabel="Yes, delete the domain"
        onConfirm={() => deletion.run(() => api.del(`/v1/domains/${id}`))}
      />
    </section>
  );
}
