/** The v4 door's domain bodies and answers, as Linode's API v4 shapes them. */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_ADDRESS_LIST, MAX_DESCRIPTION, MAX_DISPLAY_GROUP, MAX_TAG_LENGTH, MAX_TAGS, V4_STATUS_NAMES } from '../../../model/domain.js';
import { MAX_NAME_LENGTH } from '../../../model/names.js';
import { IdParam } from '../support.js';
import { oneOf, orNull, Page, Seconds, Time } from '../schemas.js';

export const DOMAIN_TYPES = ['master', 'slave'] as const;

const Addresses = Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_ADDRESS_LIST * 4 });
const Tags = Type.Array(Type.String({ maxLength: MAX_TAG_LENGTH * 4 }), { maxItems: MAX_TAGS * 4 });
const Name = Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH + 1 });

/** The fields a domain body may carry besides its name and type (null: not given). */
const settings = {
  soa_email: orNull(Type.String({ maxLength: 254 })),
  description: orNull(Type.String({ maxLength: MAX_DESCRIPTION * 4 })),
  group: orNull(Type.String({ maxLength: MAX_DISPLAY_GROUP * 4 })),
  tags: orNull(Tags),
  status: orNull(oneOf(V4_STATUS_NAMES)),
  ttl_sec: orNull(Seconds),
  refresh_sec: orNull(Seconds),
  retry_sec: orNull(Seconds),
  expire_sec: orNull(Seconds),
  master_ips: orNull(Addresses),
  axfr_ips: orNull(Addresses),
};

/** POST /v4/domains (fields Linode does not take, read-only ones such as `id` too, are ignored as Linode ignores them). */
export const DomainCreate = Type.Object({ domain: Name, type: oneOf(DOMAIN_TYPES), ...settings });
/** PUT /v4/domains/{domainId}: the fields given change, the others stay. */
export const DomainUpdate = Type.Object({ domain: orNull(Name), type: orNull(oneOf(DOMAIN_TYPES)), ...settings });
export type DomainBody = Static<typeof DomainUpdate>;

export const DomainImport = Type.Object({ domain: Name, remote_nameserver: Type.String({ minLength: 1, maxLength: 64 }) });
export const DomainClone = Type.Object({ domain: Name });

export const DomainParams = Type.Object({ domainId: IdParam });

export const Domain = Type.Object({
  id: Type.Integer(),
  domain: Type.String(),
  type: oneOf(DOMAIN_TYPES),
  status: Type.String(),
  soa_email: Type.String(),
  description: Type.String(),
  group: Type.String(),
  tags: Type.Array(Type.String()),
  ttl_sec: Type.Integer(),
  refresh_sec: Type.Integer(),
  retry_sec: Type.Integer(),
  expire_sec: Type.Integer(),
  master_ips: Type.Array(Type.String()),
  axfr_ips: Type.Array(Type.String()),
  created: Time,
  updated: Time,
});

export const DomainPage = Page(Domain);

export const ZoneFile = Type.Object({ zone_file: Type.Array(Type.String()) });
