/** A new TSIG key's secret, shown this once, with the settings each tool needs to use it. */
import { useId, useState } from 'react';
import type { NewTsigKey } from '../api';
import { CopyOrHide } from '../ui';
import { certbotSnippet, certManagerSnippet, nsupdateSnippet, type DnsServer } from './tsigSnippets';

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
export function TsigKeySecret({ created, zone, onDone }: { created: NewTsigKey; zone: string; onDone: () => void }) {
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
      <CopyOrHide text={created.secret} copyLabel="Copy secret" onDone={onDone} />
    </section>
  );
}
