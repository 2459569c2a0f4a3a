/** One domain's page: its query chart, records, DNSSEC, zone file, settings and deletion; a viewer's without what changes them. */
import { useState } from 'react';
import { api, type Domain } from '../api';
import { useLoad, useReadsOnly, useRowActions } from '../hooks';
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
  // Bumped by an import, so the records table loads the records it wrote.
  const [imports, setImports] = useState(0);
  const d = current ?? domain;
  const readsOnly = useReadsOnly();

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
      <Records key={imports} domainId={id} domain={d.domain} readsOnly={readsOnly} />
      <Dnssec domainId={id} readsOnly={readsOnly} />
      <ZoneFile domainId={id} domain={d.domain} readsOnly={readsOnly} onImported={() => setImports((n) => n + 1)} />
      {readsOnly ? null : <DomainControls id={id} domain={d} onSaved={setCurrent} />}
    </section>
  );
}

/** The settings form and the deletion, for members who may change the domain. */
function DomainControls({ id, domain, onSaved }: { id: number; domain: Domain; onSaved: (d: Domain) => void }) {
  // After a deletion this page is gone: the list of domains is shown instead of a refresh.
  const deletion = useRowActions(() => go('#/domains'), { refreshAfterFailure: false });
  return (
    <>
      <details className="panel-box">
        <summary>Domain settings</summary>
        <DomainForm
          key={JSON.stringify(domain)}
          initial={domain}
          label="Domain settings"
          submitLabel="Save settings"
          onSubmit={async (body) => onSaved(await api.patch<Domain>(`/v1/domains/${id}`, body))}
        />
      </details>
      <h2>Delete this domain</h2>
      <p>Deleting removes the domain and all its records; the DNS server stops answering for it at once.</p>
      <ErrorSummary messages={deletion.errors} />
      <ConfirmButton
        label="Delete domain"
        question={`Delete ${domain.domain} and all its records?`}
        confirmLabel="Yes, delete the domain"
        onConfirm={() => deletion.run(() => api.del(`/v1/domains/${id}`))}
      />
    </>
  );
}
