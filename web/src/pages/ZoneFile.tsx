/**
 * A domain's zone file: export (a download of GET /v1/domains/{id}/zonefile) and import, from pasted text, an
 * uploaded file or a transfer (AXFR) from the current provider. An import is always previewed first (the API's
 * dry run: records added, removed, changed and unchanged) and applied only when the user confirms it; the
 * API's problems (one per bad line) are listed with their line numbers.
 */
import { useState } from 'react';
import { api, TextBody, TSIG_ALGORITHMS, type Problem, type ZoneFileDiff } from '../api';
import { splitProblem, useRowActions, useSubmit } from '../hooks';
import { ErrorSummary, Field } from '../ui';
import { DiffSummary } from './ZoneFileDiff';

type Source = 'paste' | 'upload' | 'transfer';
const SOURCES: { value: Source; label: string }[] = [
  { value: 'paste', label: 'Paste the zone file' },
  { value: 'upload', label: 'Upload a zone file' },
  { value: 'transfer', label: 'Transfer from a server (AXFR)' },
];

interface Transfer {
  server: string;
  port: string;
  keyName: string;
  algorithm: string;
  secret: string;
}
const NO_TRANSFER: Transfer = { server: '', port: '53', keyName: '', algorithm: TSIG_ALGORITHMS[0] as string, secret: '' };

/** The fields of the transfer form the API's problems may name ("tsig.secret" is about the secret). */
const TRANSFER_FIELDS: Record<string, keyof Transfer> = { server: 'server', port: 'port', 'tsig.name': 'keyName', 'tsig.algorithm': 'algorithm', 'tsig.secret': 'secret' };

/** A problem as lines to show: its detail, then each entry with what it names ("Line 3: ..."). */
function problemLines(p: Problem, shownElsewhere: (field: string) => boolean): string[] {
  const rest = p.errors.filter((e) => !(e.field && shownElsewhere(e.field)));
  return [p.detail, ...rest.map((e) => (e.field ? `${e.field.charAt(0).toUpperCase()}${e.field.slice(1)}: ${e.reason}` : e.reason))];
}

/** What the import form holds: where the zone comes from and that source's input. */
interface ImportInput {
  source: Source;
  text: string;
  file: { name: string; text: string } | null;
  transfer: Transfer;
}
const NO_INPUT: ImportInput = { source: 'paste', text: '', file: null, transfer: NO_TRANSFER };

const isEmpty = ({ source, text, file, transfer }: ImportInput): boolean => (source === 'paste' ? text.trim() === '' : source === 'upload' ? !file : transfer.server.trim() === '');

/** The import's request: the zone file as text, or the transfer's server and key. */
function importRequest(domainId: number, { source, text, file, transfer }: ImportInput, dryRun: boolean): Promise<ZoneFileDiff> {
  const query = dryRun ? '?dry_run=true' : '';
  if (source !== 'transfer') return api.put<ZoneFileDiff>(`/v1/domains/${domainId}/zonefile${query}`, new TextBody(source === 'paste' ? text : (file?.text ?? ''), 'text/dns; charset=utf-8'));
  const port = transfer.port.trim();
  const body = {
    server: transfer.server.trim(),
    ...(port === '' ? {} : { port: /^\d+$/.test(port) ? Number(port) : port }),
    ...(transfer.keyName.trim() || transfer.secret.trim() ? { tsig: { name: transfer.keyName.trim(), algorithm: transfer.algorithm, secret: transfer.secret.trim() } } : {}),
  };
  return api.post<ZoneFileDiff>(`/v1/domains/${domainId}/zonefile/transfer${query}`, body);
}

/** The problem's entries about the transfer form's fields, filed under them. */
const transferErrors = (problem: Problem | null, source: Source): Record<string, string[]> =>
  splitProblem(
    problem && source === 'transfer' ? { ...problem, errors: problem.errors.map((e) => ({ ...e, field: TRANSFER_FIELDS[e.field ?? ''] ?? e.field })) } : null,
    Object.values(TRANSFER_FIELDS),
  ).byField;

function ZoneExport({ domainId, domain }: { domainId: number; domain: string }) {
  const exporting = useRowActions();
  const download = () =>
    exporting.run(async () => {
      const zone = await api.get<string>(`/v1/domains/${domainId}/zonefile`);
      const url = URL.createObjectURL(new Blob([zone], { type: 'text/dns' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${domain}.zone`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  return (
    <>
      <h3>Export</h3>
      <p>The zone as served (SOA, NS and every record, absolute names), as an RFC 1035 master file.</p>
      <ErrorSummary messages={exporting.errors} />
      <div className="actions">
        <button type="button" onClick={() => void download()}>
          Download {domain}.zone
        </button>
      </div>
    </>
  );
}

function TransferFields({ transfer, setField, byField }: { transfer: Transfer; setField: (name: keyof Transfer, value: string) => void; byField: Record<string, string[]> }) {
  return (
    <>
      <Field label="Server" required errors={byField.server} hint="The IP address of your current provider's primary (not a host name)">
        {(p) => <input {...p} name="server" autoComplete="off" value={transfer.server} onChange={(e) => setField('server', e.target.value)} />}
      </Field>
      <Field label="Port" errors={byField.port} hint="53, or 1024-65535">
        {(p) => <input {...p} name="port" inputMode="numeric" autoComplete="off" value={transfer.port} onChange={(e) => setField('port', e.target.value)} />}
      </Field>
      <Field label="TSIG key name" errors={byField.keyName} hint="Only if the server wants a key for transfers; used for this transfer, not stored">
        {(p) => <input {...p} name="tsig_name" autoComplete="off" value={transfer.keyName} onChange={(e) => setField('keyName', e.target.value)} />}
      </Field>
      <Field label="TSIG algorithm" errors={byField.algorithm}>
        {(p) => (
          <select {...p} name="tsig_algorithm" value={transfer.algorithm} onChange={(e) => setField('algorithm', e.target.value)}>
            {TSIG_ALGORITHMS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="TSIG secret" errors={byField.secret} hint="Base64">
        {(p) => <input {...p} name="tsig_secret" type="password" autoComplete="off" value={transfer.secret} onChange={(e) => setField('secret', e.target.value)} />}
      </Field>
    </>
  );
}

/** The chosen source's fields: a text area, a file chooser or the transfer's server and key. */
function SourceFields({ domain, input, change, byField }: { domain: string; input: ImportInput; change: (c: Partial<ImportInput>) => void; byField: Record<string, string[]> }) {
  if (input.source === 'paste')
    return (
      <Field label="Zone file">
        {(p) => <textarea {...p} name="zonefile" rows={10} spellCheck={false} placeholder={`$ORIGIN ${domain}.\n$TTL 1h\nwww  A  192.0.2.10`} value={input.text} onChange={(e) => change({ text: e.target.value })} />}
      </Field>
    );
  if (input.source === 'upload')
    return (
      <Field label="Zone file to upload" hint={input.file ? `Chosen: ${input.file.name}` : 'A text file in the RFC 1035 master-file format, at most 10 MiB'}>
        {(p) => (
          <input
            {...p}
            type="file"
            name="file"
            accept=".zone,.txt,.db,text/dns,text/plain"
            onChange={async (e) => {
              const f = e.target.files?.[0];
              change({ file: f ? { name: f.name, text: await f.text() } : null });
            }}
          />
        )}
      </Field>
    );
  return <TransferFields transfer={input.transfer} setField={(name, value) => change({ transfer: { ...input.transfer, [name]: value } })} byField={byField} />;
}

/** The import's outcome: the problem, the preview to apply or cancel, or what was imported. */
function ImportOutcome({ messages, preview, result, busy, onApply, onCancel }: {
  messages: string[];
  preview: ZoneFileDiff | null;
  result: ZoneFileDiff | null;
  busy: boolean;
  onApply: () => void;
  onCancel: () => void;
}) {
  return (
    <div aria-live="polite">
      <ErrorSummary messages={messages} />
      {preview ? (
        <div className="preview">
          <h3>Preview</h3>
          <DiffSummary diff={preview} />
          <div className="actions">
            <button type="button" className="primary" disabled={busy} onClick={onApply}>
              Apply the import
            </button>
            <button type="button" disabled={busy} onClick={onCancel}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {result ? (
        <div className="notice" role="status">
          <DiffSummary diff={result} />
        </div>
      ) : null}
    </div>
  );
}

function ZoneImport({ domainId, domain, onImported }: { domainId: number; domain: string; onImported: () => void }) {
  const [input, setInput] = useState<ImportInput>(NO_INPUT);
  const [preview, setPreview] = useState<ZoneFileDiff | null>(null);
  const [result, setResult] = useState<ZoneFileDiff | null>(null);
  // No fields named here: the problem's entries are filed by transferErrors and listed by problemLines.
  const importing = useSubmit<{ dryRun: boolean; diff: ZoneFileDiff }>(
    [],
    ({ dryRun, diff }) => {
      setPreview(dryRun ? diff : null);
      setResult(dryRun ? null : diff);
      if (!dryRun) onImported();
    },
    () => setPreview(null),
  );
  const request = (dryRun: boolean) => async () => ({ dryRun, diff: await importRequest(domainId, input, dryRun) });
  // Whatever the user changes, a preview no longer describes it: the import applied is always the one previewed.
  const change = (c: Partial<ImportInput>) => {
    setInput((i) => ({ ...i, ...c }));
    setPreview(null);
    setResult(null);
    importing.clear();
  };
  const { problem, busy } = importing;
  const general = problem ? problemLines(problem, (f) => input.source === 'transfer' && f in TRANSFER_FIELDS) : [];

  return (
    <>
      <form onSubmit={importing.submitWith(request(true))} noValidate aria-label="Import a zone file" className="grid-form import-form">
        <fieldset className="choices">
          <legend>Import from</legend>
          {SOURCES.map((s) => (
            <label key={s.value}>
              <input type="radio" name="source" value={s.value} checked={input.source === s.value} onChange={() => change({ source: s.value })} /> {s.label}
            </label>
          ))}
        </fieldset>
        <SourceFields domain={domain} input={input} change={change} byField={transferErrors(problem, input.source)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || isEmpty(input)}>
            Preview the import
          </button>
        </div>
      </form>
      <ImportOutcome messages={general} preview={preview} result={result} busy={busy} onApply={() => void importing.run(request(false))} onCancel={() => setPreview(null)} />
    </>
  );
}

/** The export, and for members who may change records (not `readsOnly`) the import. */
export function ZoneFile({ domainId, domain, readsOnly, onImported }: { domainId: number; domain: string; readsOnly: boolean; onImported: () => void }) {
  return (
    <section className="panel-box" aria-labelledby="zonefile-heading">
      <h2 id="zonefile-heading">Zone file</h2>
      <ZoneExport domainId={domainId} domain={domain} />
      {readsOnly ? null : (
        <>
          <h3>Import</h3>
          <p>
            An import makes the domain&apos;s records exactly those of the zone file: records it lacks are removed. You see the difference first;
            nothing changes until you apply it.
          </p>
          <ZoneImport domainId={domainId} domain={domain} onImported={onImported} />
        </>
      )}
    </section>
  );
}
