/**
 * A domain's zone file: export (a download of GET /v1/domains/{id}/zonefile) and import, from pasted text, an
 * uploaded file or a transfer (AXFR) from the current provider. An import is always previewed first (the API's
 * dry run: records added, removed, changed and unchanged) and applied only when the user confirms it; the
 * API's problems (one per bad line) are listed with their line numbers.
 */
import { useState, type FormEvent } from 'react';
import { api, TextBody, type Problem, type RecordItem, type ZoneFileDiff } from '../api';
import { recordTypes } from '../schema';
import { ErrorSummary, Field, problemOf, splitProblem, useLoad } from '../ui';
import { RecordValue, rowOf, shownName } from './Records';

type Source = 'paste' | 'upload' | 'transfer';
const SOURCES: { value: Source; label: string }[] = [
  { value: 'paste', label: 'Paste the zone file' },
  { value: 'upload', label: 'Upload a zone file' },
  { value: 'transfer', label: 'Transfer from a server (AXFR)' },
];

// The algorithms the transfer's key may use (interface B's TSIG algorithms); the first is the default.
const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha224', 'hmac-sha384', 'hmac-sha512', 'hmac-sha1'];

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

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The difference an import makes, one row per record it adds, removes or changes. */
function DiffTable({ diff }: { diff: ZoneFileDiff }) {
  const types = useLoad(recordTypes, []);
  const rows: { change: string; rec: RecordItem; key: string }[] = [
    ...diff.added.map((rec, i) => ({ change: 'added', rec, key: `a${i}` })),
    ...diff.removed.map((rec, i) => ({ change: 'removed', rec, key: `r${i}` })),
    ...diff.changed.map((c, i) => ({ change: `TTL ${c.before.ttl === 0 ? 'default' : String(c.before.ttl)} → ${c.after.ttl === 0 ? 'default' : String(c.after.ttl)}`, rec: c.after, key: `c${i}` })),
  ];
  if (rows.length === 0) return null;
  const spec = (type: string) => types.data?.find((t) => t.type === type);
  return (
    <div className="table-wrap">
      <table className="records-table">
        <caption className="sr-only">Records the import changes</caption>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ change, rec, key }) => {
            const s = spec(rec.type);
            const row = s ? rowOf(rec, s) : null;
            return (
              <tr key={key} className={`diff-${change.split(' ')[0]}`}>
                <td data-label="Change">{change}</td>
                <td data-label="Name">{shownName(String(rec.name ?? ''))}</td>
                <td data-label="Type">{rec.type}</td>
                <td data-label="Value" className="value">
                  {row ? <RecordValue row={row} /> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function DiffSummary({ diff }: { diff: ZoneFileDiff }) {
  const settings = diff.domain.changed.map((f) => `${f === 'soa' ? 'SOA e-mail' : f.replace(/_/g, ' ')}: ${String(diff.domain[f as keyof ZoneFileDiff['domain']])}`);
  return (
    <>
      <p>
        {diff.dry_run ? 'The import would make these changes' : 'Imported'}: {plural(diff.added.length, 'record')} added, {diff.removed.length} removed,{' '}
        {diff.changed.length} with another TTL, {diff.unchanged.length} unchanged.
        {settings.length ? ` Domain settings from the file's SOA: ${settings.join('; ')}.` : ''}
      </p>
      {diff.dry_run ? <DiffTable diff={diff} /> : null}
    </>
  );
}

export function ZoneFile({ domainId, domain, onImported }: { domainId: number; domain: string; onImported: () => void }) {
  const [source, setSource] = useState<Source>('paste');
  const [text, setText] = useState('');
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [transfer, setTransfer] = useState<Transfer>(NO_TRANSFER);
  const [preview, setPreview] = useState<ZoneFileDiff | null>(null);
  const [result, setResult] = useState<ZoneFileDiff | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [exportError, setExportError] = useState('');

  // Whatever the user changes, a preview no longer describes it: the import applied is always the one previewed.
  const edited = () => {
    setPreview(null);
    setResult(null);
    setProblem(null);
  };
  const setField = (name: keyof Transfer, value: string) => (setTransfer((t) => ({ ...t, [name]: value })), edited());

  async function run(dryRun: boolean): Promise<ZoneFileDiff> {
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

  async function act(dryRun: boolean) {
    setBusy(true);
    try {
      const diff = await run(dryRun);
      setProblem(null);
      setPreview(dryRun ? diff : null);
      setResult(dryRun ? null : diff);
      if (!dryRun) onImported();
    } catch (e) {
      setProblem(problemOf(e));
      setPreview(null);
    } finally {
      setBusy(false);
    }
  }

  async function download() {
    try {
      const zone = await api.get<string>(`/v1/domains/${domainId}/zonefile`);
      const url = URL.createObjectURL(new Blob([zone], { type: 'text/dns' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${domain}.zone`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setExportError('');
    } catch (e) {
      setExportError(problemOf(e).detail);
    }
  }

  const { byField } = splitProblem(
    problem && source === 'transfer' ? { ...problem, errors: problem.errors.map((e) => ({ ...e, field: TRANSFER_FIELDS[e.field ?? ''] ?? e.field })) } : null,
    Object.values(TRANSFER_FIELDS),
  );
  const general = problem ? problemLines(problem, (f) => source === 'transfer' && f in TRANSFER_FIELDS) : [];
  const preventSubmit = (e: FormEvent) => (e.preventDefault(), void act(true));
  const empty = source === 'paste' ? text.trim() === '' : source === 'upload' ? !file : transfer.server.trim() === '';

  return (
    <section className="panel-box" aria-labelledby="zonefile-heading">
      <h2 id="zonefile-heading">Zone file</h2>
      <h3>Export</h3>
      <p>The zone as served (SOA, NS and every record, absolute names), as an RFC 1035 master file.</p>
      <ErrorSummary messages={exportError ? [exportError] : []} />
      <div className="actions">
        <button type="button" onClick={() => void download()}>
          Download {domain}.zone
        </button>
      </div>
      <h3>Import</h3>
      <p>
        An import makes the domain&apos;s records exactly those of the zone file: records it lacks are removed. You see the difference first; nothing
        changes until you apply it.
      </p>
      <form onSubmit={preventSubmit} noValidate aria-label="Import a zone file" className="grid-form import-form">
        <fieldset className="choices">
          <legend>Import from</legend>
          {SOURCES.map((s) => (
            <label key={s.value}>
              <input type="radio" name="source" value={s.value} checked={source === s.value} onChange={() => (setSource(s.value), edited())} /> {s.label}
            </label>
          ))}
        </fieldset>
        {source === 'paste' ? (
          <Field label="Zone file">
            {(p) => <textarea {...p} name="zonefile" rows={10} spellCheck={false} placeholder={`$ORIGIN ${domain}.\n$TTL 1h\nwww  A  192.0.2.10`} value={text} onChange={(e) => (setText(e.target.value), edited())} />}
          </Field>
        ) : source === 'upload' ? (
          <Field label="Zone file to upload" hint={file ? `Chosen: ${file.name}` : 'A text file in the RFC 1035 master-file format, at most 10 MiB'}>
            {(p) => (
              <input
                {...p}
                type="file"
                name="file"
                accept=".zone,.txt,.db,text/dns,text/plain"
                onChange={async (e) => {
                  const f = e.target.files?.[0];
                  setFile(f ? { name: f.name, text: await f.text() } : null);
                  edited();
                }}
              />
            )}
          </Field>
        ) : (
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
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || empty}>
            Preview the import
          </button>
        </div>
      </form>
      <div aria-live="polite">
        <ErrorSummary messages={general} />
        {preview ? (
          <div className="preview">
            <h3>Preview</h3>
            <DiffSummary diff={preview} />
            <div className="actions">
              <button type="button" className="primary" disabled={busy} onClick={() => void act(false)}>
                Apply the import
              </button>
              <button type="button" disabled={busy} onClick={() => setPreview(null)}>
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
    </section>
  );
}
