/**
 * The panel's only way to the server: interface B (/v1) with the signed-in user's key, exactly as a
 * script would call it. Errors arrive as RFC 9457 problem documents and are kept whole, so forms can put
 * each `errors[].reason` next to the field it names.
 */

export interface FieldError {
  field: string | null;
  reason: string;
}

export interface Problem {
  status: number;
  /** The problem type: about:blank, or one the panel acts on (PROBLEM_TYPES). */
  type?: string;
  title: string;
  detail: string;
  errors: FieldError[];
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
  }
}

const KEY = 'zonehost.session';

export interface Session {
  key: string;
  keyId: number;
  username: string;
}

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && typeof s.key === 'string' ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

/** Called when the server no longer accepts the key (expired or revoked elsewhere). */
let onUnauthorised: () => void = () => {};
/** Problem types the panel acts on (docs/interface-b.md, "Two factors"). */
export const PROBLEM_TYPES = {
  otpRequired: 'https://zonehost.invalid/problems/otp-required',
  passkeyRequired: 'https://zonehost.invalid/problems/passkey-required',
  secondFactorSetupRequired: 'https://zonehost.invalid/problems/second-factor-setup-required',
} as const;

/** Called when the account requires a second factor the user has not set up: the key works only for that. */
let onSetupRequired: () => void = () => {};
export const setSetupRequiredHandler = (f: () => void): void => {
  onSetupRequired = f;
};

export const setUnauthorisedHandler = (f: () => void): void => {
  onUnauthorised = f;
};

async function problemOf(res: Response): Promise<Problem> {
  try {
    const body = (await res.json()) as Partial<Problem>;
    return {
      status: res.status,
      ...(typeof body.type === 'string' ? { type: body.type } : {}),
      title: body.title ?? res.statusText,
      detail: body.detail ?? body.title ?? `The server answered ${res.status}.`,
      errors: Array.isArray(body.errors) ? body.errors : [],
    };
  } catch {
    return { status: res.status, title: res.statusText, detail: `The server answered ${res.status} ${res.statusText}.`, errors: [] };
  }
}

interface Reply<T> {
  body: T;
  next: string | null;
}

/** A body sent as it is, with its own media type (a zone file), instead of as JSON. */
export class TextBody {
  constructor(
    readonly text: string,
    readonly type: string,
  ) {}
}

async function send<T>(method: string, path: string, body?: unknown, key = loadSession()?.key): Promise<Reply<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = body instanceof TextBody ? body.type : 'application/json';
  const payload = body instanceof TextBody ? body.text : JSON.stringify(body);
  let res: Response;
  try {
    // No cookies or browser-held credentials: the key goes in the header. It also stops the browser from
    // answering a 401's `WWW-Authenticate: Basic` challenge with its own login dialog.
    res = await fetch(path, { method, headers, credentials: 'omit', ...(body === undefined ? {} : { body: payload }) });
  } catch {
    throw new ApiError({ status: 0, title: 'Network error', detail: 'The server could not be reached. Check your connection and try again.', errors: [] });
  }
  if (!res.ok) {
    const problem = await problemOf(res);
    if (res.status === 401 && key) onUnauthorised();
    if (res.status === 403 && problem.type === PROBLEM_TYPES.secondFactorSetupRequired) onSetupRequired();
    throw new ApiError(problem);
  }
  const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
  // JSON, or the text of other media types (a zone file).
  const json = /json/.test(res.headers.get('content-type') ?? '');
  return { body: (res.status === 204 ? null : json ? await res.json() : await res.text()) as T, next };
}

export const api = {
  get: async <T>(path: string) => (await send<T>('GET', path)).body,
  post: async <T>(path: string, body: unknown) => (await send<T>('POST', path, body)).body,
  put: async <T>(path: string, body: unknown) => (await send<T>('PUT', path, body)).body,
  patch: async <T>(path: string, body: unknown) => (await send<T>('PATCH', path, body)).body,
  /** `body`: for the few deletions that take one (turning TOTP off takes a code). */
  del: async (path: string, body?: unknown) => {
    await send<null>('DELETE', path, body);
  },
  /** Every item of a list, following its Link rel="next" pages. */
  async all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    for (let url: string | null = path; url; ) {
      const r: Reply<T[]> = await send<T[]>('GET', url);
      items.push(...r.body);
      url = r.next;
    }
    return items;
  },
};

/** Key creation takes the user name and password instead of a key. */
/**
 * `sessionKey`: the signed-in session's key, sent along so that it caps the new key (a session signed in
 * with a scoped key cannot make a wider one); signing in sends none, but marks its key a `session` and sends
 * the two-factor code (`otp`) when the user has one.
 */
export async function createKey(
  username: string,
  password: string,
  label: string,
  expires: number,
  opts: { scope?: KeyScope; sessionKey?: string; otp?: string; session?: boolean } = {},
): Promise<NewKey> {
  const body = { username, password, label, expires, ...(opts.scope ? { scope: opts.scope } : {}), ...(opts.otp ? { otp: opts.otp } : {}), ...(opts.session ? { session: true } : {}) };
  return (await send<NewKey>('POST', '/v1/keys', body, opts.sessionKey ?? '')).body;
}

/** A passkey sign-in's key, with the user it signed in (the panel knew no user name). */
export interface PasskeySession extends NewKey {
  username: string;
}

export async function revokeKey(id: number, key?: string): Promise<void> {
  await send<null>('DELETE', `/v1/keys/${id}`, undefined, key);
}

// The shapes of interface B (see /v1/openapi.json).
export interface Domain {
  id: number;
  domain: string;
  soa: string;
  default_ttl: number;
  status: 'active' | 'inactive';
  axfr: string[];
}

export interface Mirror {
  id: number;
  domain: string;
  masters: string[];
  status: 'active' | 'inactive';
  axfr: string[];
  /** Transfers from the masters over TLS (port 853). */
  tls: boolean;
  /** How the masters' certificate is verified over TLS: the name it must hold, the CAs (PEM; null: the system's); null: not verified. */
  tls_verify: { name: string; ca: string | null } | null;
  transfer: { serial: number | null; last_success: string | null; last_attempt: string | null; last_error: string | null };
}

/** What a key may do (docs/interface-b.md, "API keys"); an absent field does not restrict. */
export interface KeyScope {
  domains?: number[];
  read_only?: boolean;
  records?: { names?: string[]; types?: string[] };
  subnets?: string[];
}

export interface ApiKey {
  id: number;
  label: string;
  created: string;
  expires: string | null;
  prefix: string;
  scope: KeyScope;
}

export interface NewKey extends ApiKey {
  key: string;
}

export interface Passkey {
  id: number;
  name: string;
  created: string;
  last_used: string | null;
}

export type RecordItem = { id: number; type: string } & Record<string, unknown>;

/** The answer to a zone-file import, dry run or not (docs/interface-b.md, zone files). */
export interface ZoneFileDiff {
  dry_run: boolean;
  added: RecordItem[];
  removed: RecordItem[];
  changed: { before: RecordItem; after: RecordItem }[];
  unchanged: RecordItem[];
  domain: { soa: string; default_ttl: number; refresh: number; retry: number; expire: number; changed: string[] };
}

export interface QueryCounts {
  start: string;
  interval: number;
  counts: number[];
}

/** The TSIG algorithms interface B accepts (its schema lists them); the first is the default. */
export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha224', 'hmac-sha384', 'hmac-sha512', 'hmac-sha1'];

export type UpdateScope = boolean | { names?: string[]; types?: string[] };

export interface TsigKey {
  id: number;
  name: string;
  algorithm: string;
  domains: number[];
  update: UpdateScope;
  transfer: boolean;
  created: string;
}

export interface NewTsigKey extends TsigKey {
  secret: string;
}

export type DnssecAlgorithm = 'ECDSAP256SHA256' | 'ED25519';

export interface DnssecKey {
  id: number;
  key_tag: number;
  flags: number;
  algorithm: number;
  state: 'incoming' | 'active' | 'retiring';
  dnskey: string;
  ds: string[];
  created: string;
}

export interface Dnssec {
  enabled: boolean;
  status: 'signed' | 'unsigning' | 'off';
  algorithm: DnssecAlgorithm | null;
  keys: DnssecKey[];
  next_step: string | null;
}

export type Role = 'owner' | 'admin' | 'editor' | 'viewer';
export const ROLES: Role[] = ['owner', 'admin', 'editor', 'viewer'];

export interface Member {
  id: number;
  username: string;
  role: Role;
  /** null: every domain. */
  domains: number[] | null;
  created: string;
  invitation_expires: string | null;
}

export interface NewMember extends Member {
  invitation: string;
}

export type HealthStatus = 'up' | 'down' | 'unknown';

export interface HealthCheck {
  id: number;
  type: 'http' | 'https' | 'tcp';
  address: string;
  port: number;
  path: string;
  host: string;
  interval: number;
  timeout: number;
  fall: number;
  rise: number;
  status: HealthStatus;
  changed: string | null;
  created: string;
}

/** A record's steering (docs/interface-b.md "Steering"). */
export interface Steering {
  healthcheck?: number;
  weight?: number;
  subnets?: string[];
}
