/** Calls to the PowerDNS door of a test server, as PowerDNS clients make them (X-API-Key, JSON). */

export interface PdnsReply {
  status: number;
  /** The body as JSON, when it is JSON. */
  body: any;
  text: string;
  headers: Headers;
}

/** A path under /api/v1/servers/localhost when it starts with `~`. */
export const pdnsUrl = (base: string, path: string) => `${base}${path.replace(/^~/, '/api/v1/servers/localhost')}`;

export async function pdns(base: string, key: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<PdnsReply> {
  const res = await fetch(pdnsUrl(base, path), {
    method,
    headers: { ...(key === null ? {} : { 'x-api-key': key }), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

/** An RRset change as PowerDNS clients write it. */
export const rrset = (name: string, type: string, contents: string[], ttl = 3600, changetype = 'REPLACE') => ({
  name,
  type,
  ttl,
  changetype,
  records: contents.map((content) => ({ content, disabled: false })),
});

/** Makes a Native zone through the door; fails the test unless it answers 201. */
export async function pdnsZone(base: string, key: string, zone: string, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await pdns(base, key, 'POST', '~/zones', { name: `${zone}.`, kind: 'Native', nameservers: [], ...extra });
  if (r.status !== 201) throw new Error(`creating ${zone}: ${r.status} ${r.text}`);
  return r.body;
}

/** The zone's RRsets as `name type ttl content` lines, sorted; SOA and NS left out. */
export async function rrsetLines(base: string, key: string, zone: string): Promise<string[]> {
  const r = await pdns(base, key, 'GET', `~/zones/${zone}.`);
  if (r.status !== 200) throw new Error(`reading ${zone}: ${r.status} ${r.text}`);
  return (r.body.rrsets as { name: string; type: string; ttl: number; records: { content: string }[] }[])
    .filter((s) => s.type !== 'SOA' && s.type !== 'NS')
    .flatMap((s) => s.records.map((rec) => `${s.name} ${s.type} ${s.ttl} ${rec.content}`))
    .sort();
}
