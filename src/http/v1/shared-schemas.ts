/**
 * The schema pieces interface B's resources share (TypeBox): the problem document, path ids, pages, the
 * fields of a TSIG key and of a scope, and how a success response is documented. Each resource's own
 * schemas live beside its routes (domains/schemas.ts, records/schemas.ts, ...).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_SCOPE_ITEMS } from '../../model/name-scope.js';
import { MAX_NAME_LENGTH } from '../../model/names.js';
import { MIN_SECRET_BYTES, TSIG_ALGORITHM_NAMES } from '../../model/tsig-key.js';

export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 100;

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'A URI reference naming the kind of problem; "about:blank" when the HTTP status says it all' }),
    title: Type.String({ description: 'Short summary of the kind of problem' }),
    status: Type.Integer({ description: 'The HTTP status code' }),
    detail: Type.String({ description: 'Human-readable explanation of this occurrence' }),
    errors: Type.Array(
      Type.Object(
        {
          field: Type.Union([Type.String(), Type.Null()], { description: 'The input field at fault (dotted path, e.g. "axfr.1"), or null when the problem is not about one field' }),
          reason: Type.String({ description: 'What is wrong with it' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Every problem found, not just the first' },
    ),
  },
  { additionalProperties: false, title: 'Problem', description: 'An RFC 9457 problem document (media type application/problem+json)' },
);

/** Path parameter of a domain or zone mirror (and of what hangs below one). */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Domain or zone-mirror id' }) });

/** The fields of a paged list query (spread into each list's own query). */
export const pageFields = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE, description: `Page size, at most ${MAX_PAGE}` })),
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Cursor: return items after this id. Follow the Link rel="next" header instead of building it.' })),
};
export const PageQuery = Type.Object(pageFields, { additionalProperties: false });

/** A moment as an ISO date-time, or null. */
export const timestamp = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/** A TSIG key's fields, shared by TSIG keys and by the key a zone mirror uses for its masters. */
export const tsigAlgorithm = Type.Union(
  TSIG_ALGORITHM_NAMES.map((a) => Type.Literal(a)),
  { description: `one of ${TSIG_ALGORITHM_NAMES.join(', ')} (hmac-sha1 only for old clients)` },
);
export const tsigName = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH + 1,
    description: `${what}: a DNS name (letters, digits, hyphens, underscores), accepted with or without the trailing dot and shown absolute with it`,
  });
export const tsigSecret = Type.String({
  maxLength: 1024,
  description: `The shared secret, base64, at least ${MIN_SECRET_BYTES} bytes once decoded`,
});

/** Names and types a scope may list: a TSIG key's update scope, an API key's records scope. */
export const scopeLists = {
  names: Type.Optional(
    Type.Array(Type.String({ maxLength: MAX_NAME_LENGTH + 1 }), {
      maxItems: MAX_SCOPE_ITEMS,
      description: 'Owner names relative to the domain: "@" is the apex, "*.x" is *.x and every name below x. Left out: every name.',
    }),
  ),
  types: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: MAX_SCOPE_ITEMS, description: 'Record types, e.g. "TXT". Left out: every type.' })),
};

/** Response map entries shared by every route: errors are problem documents. */
export const problemResponse = {
  description: 'An error, as an RFC 9457 problem document. A 401 carries WWW-Authenticate, a 405 Allow, a 429 Retry-After.',
  content: { 'application/problem+json': { schema: Problem } },
};

const HEADERS = {
  ETag: 'Entity tag of the representation, for If-Match',
  Location: 'URL of the new resource',
  Link: 'The next page as <url>; rel="next", when more items follow',
} as const;

/** A success response for the OpenAPI document: the body schema, its description and the headers it carries. */
export function success<T extends TSchema>(schema: T, description: string, headers: (keyof typeof HEADERS)[] = []): T {
  return {
    ...schema,
    'x-response-description': description,
    ...(headers.length ? { headers: Object.fromEntries(headers.map((h) => [h, { type: 'string', description: HEADERS[h] }])) } : {}),
  };
}
