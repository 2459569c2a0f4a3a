/** TSIG keys: DNS UPDATE and signed transfers for tools such as nsupdate, certbot or external-dns; a new key's secret is shown once. */
import { useId, useState, type FormEvent } from 'react';
import { api, type Domain, type Mirror, type NewTsigKey, type Problem, type TsigKey, type UpdateScope } from '../api';
import { ConfirmButton, ErrorSummary, Field, listOf, problemOf, splitProblem, useLoad, when } from '../ui';

// The algorithms interface B accepts (its schema lists them); the first is the default.
const ALGORITHMS = ['hmac-sha256', 'hmac-sha224', 'hmac-sha384', 'hmac-sha512', 'hmac-sha1'];

type UpdateChoice = 'none' | 'all' | 'limited';

function scopeText(u: UpdateScope): string {
  if (u === false) return 'no updates';
  if (u === true) return 'any name and type';
  return [`names: ${u.names?.join(', ') ?? 'any'}`, `types: ${u.types?.join(', ') ?? 'any'}`].join('; ');
}

/** Where the tools send their messages: zonehost's DNS address, which the API does not know (see --dns). */
interface DnsServer {
  host: string;
  port: string;
}

/** A name the key may update, for the examples: its first plain name, else the ACME one. */
const exampleName = (u: UpdateScope): string => (typeof u === 'object' ? u.names?.find((n) => n !== '@' && !n.startsWith('*')) : undefined) ?? '_acme-challenge';

/** nsupdate (BIND 9) reading its commands from the here-document; the key on its command line (-y). */
function nsupdateSnippet(k: NewTsigKey, zone: string, dns: DnsServer): string {
  return [
    `nsupdate -y ${k.algorithm}:${k.name}:${k.secret} <<'EOF'`,
    `server ${dns.host} ${dns.port}`,
    `zone ${zone}.`,
    `update add ${exampleName(k.update)}.${zone}. 300 TXT "replace me"`,
    'send',
    'EOF',
  ].join('\n');
}

/** certbot-dns-rfc2136's credentials file (its algorithm names are upper-case). */
const certbotSnippet = (k: NewTsigKey, dns: DnsServer): string =>
  [
    '# /etc/letsencrypt/zonehost.ini (chmod 600), then:',
    `# certbot certonly --authenticator dns-rfc2136 --dns-rfc2136-credentials /etc/letsencrypt/zonehost.ini -d example.com`,
    `dns_rfc2136_server = ${dns.host}`,
    `dns_rfc2136_port = ${dns.port}`,
    `dns_rfc2136_name = ${k.name}`,
    `dns_rfc2136_secret = ${k.secret}`,
    `dns_rfc2136_algorithm = ${k.algorithm.toUpperCase()}`,
  ].join('\n');

// The algorithms cert-manager's rfc2136 solver takes (its names).
const CERT_MANAGER_ALGORITHMS = ['HMACSHA1', 'HMACSHA256', 'HMACSHA512'];

/** A cert-manager Issuer with the rfc2136 DNS-01 solver, and the Secret holding the key's secret. */
function certManagerSnippet(k: NewTsigKey, zone: string, dns: DnsServer): string {
  const algorithm = k.algorithm.replace('hmac-', 'HMAC').toUpperCase();
  return [
    ...(CERT_MANAGER_ALGORITHMS.includes(algorithm) ? [] : [`# cert-manager takes only ${CERT_MANAGER_ALGORITHMS.join(', ')}: make a key with one of them.`]),
    'apiVersion: v1',
    'kind: Secret',
    'metadata:',
    '  name: zonehost-tsig',
    '  namespace: cert-manager',
    'type: Opaque',
    'stringData:',
    `  tsig-secret: "${k.secret}"`,
    '---',
    'apiVersion: cert-manager.io/v1',
    'kind: Issuer',
    'metadata:',
    '  name: letsencrypt',
    '  namespace: cert-manager',
    'spec:',
    '  acme:',
    '    server: https://acme-v02.api.letsencrypt.org/directory',
    `    email: hostmaster@${zone}`,
    '    privateKeySecretRef:',
    '      name: letsencrypt-account-key',
    '    solvers:',
    '      - dns01:',
    '          rfc2136:',
    `            nameserver: "${dns.host.includes(':') ? `[${dns.host}]` : dns.host}:${dns.port}"`,
    `            tsigKeyName: ${k.name}`,
    `            tsigAlgorithm: ${algorithm}`,
    '            tsigSecretSecretRef:',
    '              name: zonehost-tsig',
    '              key: tsig-secret',
  ].join('\n');
}

/** A block of text to paste, its own tab stop (it may scroll) with a copy button. */
function Snippet({ title, text }: { title: string; text: string }) {
  const id = useId();
  return (
    <div className="snippet">
      <h3 id={id}>{title}</h3>
      <pre tabIndex={0} aria-labelledby={id}>
        <code>{text}</code>
      </pre>
      <button type="button" onClick={() => navigator.clipboard?.writeText(text)}>
        Copy: {title}
      </button>
    </div>
  );
}

/** A new key's secret, shown this once, with what each tool needs to use it. */
function NewKey({ created, zone, onDone }: { created: NewTsigKey; zone: string; onDone: () => void }) {
  const [dns, setDns] = useState<DnsServer>({ host: window.location.hostname, port: '53' });
  // An IPv6 address without the brackets URLs put around it (the snippets add their own where needed).
  const target = { host: dns.host.trim().replace(/^\[(.*)\]$/, '$1'), port: dns.port.trim() };
  return (
    <section className="new-key" aria-label="The new TSIG key">
      <p role="status">
        New key <strong>{created.name}</strong> ({created.algorithm}); its secret is shown only this once — copy it now:
      </p>
      <code aria-label="The new key's secret">{created.secret}</code>
      {created.update === false ? <p>This key may not update records: the snippets below need a key with DNS UPDATE.</p> : null}
      <p>
        Ready-to-paste settings for your tools. They send their messages to zonehost's DNS server: give its address as your tools reach it (an IP
        address for certbot).
      </p>
      <div className="toolbar">
        <label htmlFor="snippet-host">DNS server</label>
        <input id="snippet-host" value={dns.host} autoComplete="off" onChange={(e) => setDns({ ...dns, host: e.target.value })} />
        <label htmlFor="snippet-port">Port</label>
        <input id="snippet-port" className="port" inputMode="numeric" value={dns.port} autoComplete="off" onChange={(e) => setDns({ ...dns, port: e.target.value })} />
      </div>
      <Snippet title="nsupdate" text={nsupdateSnippet(created, zone, target)} />
      <Snippet title="certbot-dns-rfc2136 credentials" text={certbotSnippet(created, target)} />
      <Snippet title="cert-manager Issuer and Secret" text={certManagerSnippet(created, zone, target)} />
      <div className="actions">
        <button type="button" onClick={() => navigator.clipboard?.writeText(created.secret)}>
          Copy secret
        </button>
        <button type="button" onClick={onDone}>
          Done, hide it
        </button>
      </div>
    </section>
  );
}

function CreateTsigKey({ zones, onCreated }: { zones: { id: number; domain: string }[]; onCreated: (k: NewTsigKey) => void }) {
  const [name, setName] = useState('');
  const [algorithm, setAlgorithm] = useState(ALGORITHMS[0] as string);
  const [domains, setDomains] = useState<string[]>([]);
  const [update, setUpdate] = useState<UpdateChoice>('none');
  const [names, setNames] = useState('');
  const [types, setTypes] = useState('');
  const [transfer, setTransfer] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const { byField, general } = splitProblem(problem, ['name', 'algorithm', 'domains', 'update', 'transfer']);

  async function submit(e: FormEvent) {
    e.preventDefault();
    // An empty list is left out: it means "no restriction" on that side.
    const limited = { ...(listOf(names).length ? { names: listOf(names) } : {}), ...(listOf(types).length ? { types: listOf(types) } : {}) };
    const scope: UpdateScope = update === 'none' ? false : update === 'all' ? true : limited;
    try {
      const k = await api.post<NewTsigKey>('/v1/tsigkeys', { name: name.trim(), algorithm, domains: domains.map(Number), update: scope, transfer });
      setProblem(null);
      setName('');
      setAlgorithm(ALGORITHMS[0] as string);
      setDomains([]);
      setUpdate('none');
      setNames('');
      setTypes('');
      setTransfer(false);
      onCreated(k);
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Create a TSIG key" className="grid-form">
      <ErrorSummary messages={general} />
      <Field label="Key name" errors={byField.name} required hint="A DNS name, unique in the whole service, e.g. acme.example.com">
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Algorithm" errors={byField.algorithm}>
        {(p) => (
          <select {...p} name="algorithm" value={algorithm} onChange={(e) => setAlgorithm(e.target.value)}>
            {ALGORITHMS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Domains" errors={byField.domains} hint="The domains and zone mirrors the key may act on (Ctrl or Cmd to choose several)">
        {(p) => (
          <select {...p} name="domains" multiple value={domains} onChange={(e) => setDomains([...e.target.selectedOptions].map((o) => o.value))}>
            {zones.map((z) => (
              <option key={z.id} value={String(z.id)}>
                {z.domain}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="DNS UPDATE" errors={byField.update}>
        {(p) => (
          <select {...p} name="update" value={update} onChange={(e) => setUpdate(e.target.value as UpdateChoice)}>
            <option value="none">none</option>
            <option value="all">any name and type</option>
            <option value="limited">only some names and types</option>
          </select>
        )}
      </Field>
      {update === 'limited' ? (
        <>
          <Field label="Names" hint="Relative to the domain: @ is the apex, *.x is x's subtree; e.g. _acme-challenge. Empty: any name.">
            {(p) => <input {...p} name="names" value={names} onChange={(e) => setNames(e.target.value)} autoComplete="off" />}
          </Field>
          <Field label="Types" hint="e.g. TXT. Empty: any type.">
            {(p) => <input {...p} name="types" value={types} onChange={(e) => setTypes(e.target.value)} autoComplete="off" />}
          </Field>
        </>
      ) : null}
      <Field label="Zone transfers" errors={byField.transfer} hint="Allow AXFR/IXFR of the key's domains when signed with it">
        {(p) => <input {...p} name="transfer" type="checkbox" checked={transfer} onChange={(e) => setTransfer(e.target.checked)} />}
      </Field>
      <div className="actions">
        <button type="submit" className="primary">
          Create TSIG key
        </button>
      </div>
    </form>
  );
}

export function TsigKeys() {
  const { data, error, reload } = useLoad(() => api.all<TsigKey>('/v1/tsigkeys?limit=500'), []);
  const zones = useLoad(
    async () => [...(await api.all<Domain>('/v1/domains?limit=500')), ...(await api.all<Mirror>('/v1/zonemirrors?limit=500'))].sort((a, b) => a.id - b.id),
    [],
  );
  const [created, setCreated] = useState<NewTsigKey | null>(null);
  const [rowError, setRowError] = useState('');
  const zoneName = (id: number) => zones.data?.find((z) => z.id === id)?.domain ?? `#${id}`;

  return (
    <section>
      <h1 tabIndex={-1}>TSIG keys</h1>
      <p>
        TSIG keys sign DNS messages: dynamic updates (nsupdate, certbot, external-dns, cert-manager) and zone transfers. Each key acts only on the domains
        chosen for it, and only on the names and types its scope allows. Its secret is shown once, when the key is created.
      </p>
      <ErrorSummary messages={[error?.detail, zones.error?.detail, rowError].filter((m): m is string => !!m)} />
      {created ? <NewKey created={created} zone={created.domains.length ? zoneName(created.domains[0] as number) : 'example.com'} onDone={() => setCreated(null)} /> : null}
      {data ? (
        data.length === 0 ? (
          <p>No TSIG keys yet.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Your TSIG keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Algorithm</th>
                  <th scope="col">Domains</th>
                  <th scope="col">DNS UPDATE</th>
                  <th scope="col">Transfers</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((k) => (
                  <tr key={k.id}>
                    <th scope="row">
                      <code>{k.name}</code>
                    </th>
                    <td>{k.algorithm}</td>
                    <td>{k.domains.length ? k.domains.map(zoneName).join(', ') : 'none'}</td>
                    <td>{scopeText(k.update)}</td>
                    <td>{k.transfer ? 'yes' : 'no'}</td>
                    <td>{when(k.created)}</td>
                    <td className="row-actions">
                      <ConfirmButton
                        label="Delete"
                        question={`Delete the key “${k.name}”? Messages signed with it are refused from now on.`}
                        confirmLabel="Yes, delete"
                        onConfirm={async () => {
                          try {
                            await api.del(`/v1/tsigkeys/${k.id}`);
                            setRowError('');
                          } catch (e) {
                            setRowError(problemOf(e).detail);
                          }
                          reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
      <h2>Create a TSIG key</h2>
      <CreateTsigKey
        zones={zones.data ?? []}
        onCreated={(k) => {
          setCreated(k);
          reload();
        }}
      />
    </section>
  );
}
