/** Table shapes as Kysely sees them; the same on SQLite and PostgreSQL. Times are epoch milliseconds. */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  created_at: number;
  /** 'active' or 'suspended' (model/account.ts AccountStatus). */
  status: Generated<string>;
  /** The operator's limits for this account; null: the node's defaults. */
  max_domains: number | null;
  max_records: number | null;
  /** 0 or 1: its members without a second factor may only set one up (migration 015). */
  require_2fa: Generated<number>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  key_hash: string;
  prefix: string;
  label: string;
  created_at: number;
  expires_at: number | null;
  /** JSON of the key's scope (model/key-scope.ts); '{}' when it has none. */
  scope: string;
  /** The member who made the key (users.id); null only in rows no release since 014_members writes. */
  user_id: number | null;
  /** 0 or 1: a panel sign-in (a password or a passkey made it), which a password change revokes. */
  session: Generated<number>;
}

/** An account's members (model/roles.ts); an owner's id is its account's id. */
export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  /** Unique in the whole service: sign-in names only the user. */
  username: string;
  /** '' until the invitation is accepted. */
  password_hash: string;
  role: string;
  /** JSON array of domain ids, or null for every domain. */
  domains: string | null;
  created_at: number;
  /** sha256 of the pending invitation's token, and when it expires; null when none is pending. */
  invitation_hash: string | null;
  invitation_expires_at: number | null;
}

/** A user's TOTP secret (RFC 6238); `enabled` 0 until a first code confirmed it. */
export interface TotpSecretsTable {
  user_id: number;
  /** Base32. */
  secret: string;
  enabled: Generated<number>;
  /** The time step of the last code accepted (each code works once); null before any. */
  last_step: number | null;
  created_at: number;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 (hex) of the code as normalised (services/second-factors.ts). */
  code_hash: string;
  used_at: number | null;
}

export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** Base64url, as WebAuthn names the credential; unique in the service. */
  credential_id: string;
  /** Base64url of the COSE public key. */
  public_key: string;
  counter: number;
  /** JSON array of the authenticator's transports (usb, internal, hybrid...). */
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

/** A WebAuthn challenge handed out and not yet answered: `purpose` register (a user's) or sign-in (anyone's). */
export interface WebauthnChallengesTable {
  challenge: string;
  purpose: string;
  user_id: number | null;
  expires_at: number;
}

export interface DomainsTable {
  id: Generated<number>;
  account_id: number;
  domain: string;
  kind: string;
  soa_email: string;
  description: string;
  refresh: number;
  retry: number;
  expire: number;
  ttl: number;
  status: number;
  /** JSON arrays of addresses. */
  master_ips: string;
  axfr_ips: string;
  display_group: string;
  /** JSON {name, algorithm, secret} of a zone mirror's key for its masters, or null. */
  master_tsig: string | null;
  /** 1: a zone mirror asks its masters over TLS. */
  master_tls: number;
  /** JSON {name, ca} with which a zone mirror verifies its masters' certificate over TLS, or null (not verified). */
  master_tls_auth: string | null;
  /** JSON array of the domain's tags (Linode API v4's). */
  tags: Generated<string>;
  /** 'native' or 'master': the kind a master domain was given through the PowerDNS API. */
  primary_kind: string;
  serial: number;
  created_at: number;
  updated_at: number;
}

export interface RecordsTable {
  id: Generated<number>;
  domain_id: number;
  type: string;
  name: string;
  ttl: number;
  /** JSON of the type's own fields (RecordData.data). */
  data: string;
  /** JSON of the record's steering (model/steering.ts), null for none. */
  steering: string | null;
  created_at: number;
  updated_at: number;
}

/** Health checks (model/health-check.ts), owned by an account; the leader runs them and keeps their status. */
export interface HealthChecksTable {
  id: Generated<number>;
  account_id: number;
  /** http, https or tcp. */
  type: string;
  address: string;
  port: number;
  path: string;
  host: string;
  /** Seconds. */
  interval: number;
  /** Milliseconds (a timeout may be a fraction of a second). */
  timeout_ms: number;
  fall: number;
  rise: number;
  /** up, down or unknown. */
  status: string;
  /** When the status last changed (epoch ms); null while it never has. */
  changed_at: number | null;
  created_at: number;
}

/** The change journal: one row per change, for IXFR and the audit trail. */
export interface ChangesTable {
  id: Generated<number>;
  domain_id: number;
  account_id: number | null;
  serial: number;
  at: number;
  action: string;
  object_id: number | null;
  key_label: string;
  /** The API key that made the change; null when none did. */
  key_id: number | null;
  /** The member behind the change (users.id, and the name as it was); null and '' for the server itself. */
  user_id: Generated<number | null>;
  username: Generated<string>;
  iface: string;
  remote_addr: string;
  /** JSON of the object before and after the change ("null" when absent). */
  before: string;
  after: string;
}

export interface MirrorStateTable {
  domain_id: number;
  serial: number | null;
  last_success: number | null;
  last_attempt: number | null;
  last_error: string | null;
  zone: string | null;
}

export interface TsigKeysTable {
  id: Generated<number>;
  account_id: number;
  /** Lower case, without the trailing dot; unique in the service. */
  name: string;
  algorithm: string;
  /** Base64. */
  secret: string;
  /** JSON array of domain ids. */
  domains: string;
  /** JSON: true, false or {names?, types?}. */
  update_scope: string;
  /** 0 or 1 (a boolean on both backends). */
  transfer: number;
  created_at: number;
  /** The member who made the key (users.id). */
  user_id: number | null;
}

export interface DnssecZonesTable {
  domain_id: number;
  /** signed, unsigning or off. */
  status: string;
  /** Algorithm mnemonic (ECDSAP256SHA256, ED25519). */
  algorithm: string;
  since: number;
}

export interface DnssecKeysTable {
  id: Generated<number>;
  domain_id: number;
  algorithm: number;
  flags: number;
  /** DNSKEY rdata, base64. */
  dnskey: string;
  key_tag: number;
  /** The private key sealed with the key-encryption key (model/dnssec.ts sealKey). */
  sealed_key: string;
  /** incoming, active or retiring. */
  state: string;
  created_at: number;
  active_at: number | null;
  retiring_at: number | null;
}

/** One row (id 1): the catalog zone's serial. */
export interface CatalogTable {
  id: number;
  serial: number;
}

/** One row per period: the DNS cookie secret of that day (model/cookie-secret.ts). */
export interface CookieSecretsTable {
  period: number;
  /** 16 bytes, hex. */
  secret: string;
  created_at: number;
}

export interface Database {
  catalog: CatalogTable;
  cookie_secrets: CookieSecretsTable;
  mirror_state: MirrorStateTable;
  accounts: AccountsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  totp_secrets: TotpSecretsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  domains: DomainsTable;
  records: RecordsTable;
  healthchecks: HealthChecksTable;
  changes: ChangesTable;
  tsig_keys: TsigKeysTable;
  dnssec_zones: DnssecZonesTable;
  dnssec_keys: DnssecKeysTable;
}
