/**
 * Typed errors raised by the core. Each interface maps them to its own format
 * (v3 ERRORCODE/ERRORMESSAGE, problem+json, DNS rcode); the core never formats.
 */

/** One broken rule: `field` names the input (a registry/canonical field name), `message` is a human sentence. */
export interface FieldProblem {
  field: string;
  message: string;
}

export abstract class ZoneHostError extends Error {}

/** The object does not exist, or belongs to another account (the two must be indistinguishable). */
export class NotFoundError extends ZoneHostError {
  constructor(readonly what: 'domain' | 'record' | 'key' | 'mirror' | 'tsigkey' | 'account' | 'member' | 'passkey' | 'healthcheck' = 'domain') {
    super('Object not found');
  }
}

/** Input broke one or more rules. Every problem found is listed, not just the first. */
export class ValidationError extends ZoneHostError {
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => p.message).join(' '));
  }
  static one(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

/** A value of the wrong type (e.g. "abc" where a number is needed). Interface A reports it as code 7. */
export class InvalidTypeError extends ValidationError {}

/**
 * A uniqueness or consistency rule against existing data (duplicate domain, CNAME clash). `field` is the
 * input at fault; null when no input is (a deletion the rule forbids).
 */
export class ConflictError extends ZoneHostError {
  constructor(
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** Wrong credentials or an expired/revoked key. */
export class AuthError extends ZoneHostError {
  constructor() {
    super('Authentication failed');
  }
}

/**
 * The credentials are right but their account is suspended by the operator (`zonehost account set --suspend`):
 * raised only after the key, password or TSIG signature checked out, so it tells nothing to a guesser.
 */
export class SuspendedError extends ZoneHostError {
  constructor(readonly account: string) {
    super(`The account '${account}' is suspended; ask the operator of this service to resume it.`);
  }
}

/**
 * The password was right, but the user has a second factor: the sign-in needs its code (`otp` on interface B,
 * `token` on interface A), or, for a user whose only factor is a passkey, a passkey sign-in in the panel.
 * Raised only after the password checked out, as Linode's NEEDTOKEN was.
 */
export class SecondFactorNeededError extends ZoneHostError {
  constructor(readonly factor: 'totp' | 'passkey') {
    super(
      factor === 'totp'
        ? 'This user has two-factor sign-in on: send the code of the authenticator app (or a recovery code) as well.'
        : 'This user signs in with a passkey: sign in with it in the control panel (keys can then be made there).',
    );
  }
}

/**
 * The account requires a second factor of its members (require_2fa) and this user has none yet: until they
 * set one up (TOTP or a passkey), their keys work only for that.
 */
export class SecondFactorSetupError extends ZoneHostError {
  constructor() {
    super('This account requires a second factor, and you have none yet: set up TOTP (/v1/me/totp) or a passkey (/v1/me/passkeys) first; until then your keys work only for that.');
  }
}

/**
 * The API key's scope (model/key-scope.ts) does not allow this. `rule` names the scope field that refuses
 * (`read_only`, `records.names`, `records.types`, `records`, `domains`, `subnets`, `expires`). Domains outside
 * a key's scope are NotFoundError instead, like another account's.
 */
export class ScopeError extends ZoneHostError {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

/** A count limit was reached (keys per account, records per domain, ...). */
export class LimitError extends ZoneHostError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Too many requests or failed sign-ins; retry after the given number of seconds. */
export class RateLimitedError extends ZoneHostError {
  constructor(readonly retryAfterSeconds: number) {
    super('API rate limit exceeded');
  }
}

/**
 * This node lacks what the request needs and only its operator can give it (a TOTP secret sealed by another
 * node, and no key-encryption key here): answered as a server-side failure that says so, not retried by itself.
 */
export class MisconfiguredError extends ZoneHostError {}

/**
 * The database cannot be reached (stopped, restarting, cut off): nothing this request asked for is known to
 * have happened. Interfaces answer it as a temporary failure to retry after the given number of seconds.
 */
export class UnavailableError extends ZoneHostError {
  constructor(
    override readonly cause: unknown,
    readonly retryAfterSeconds = 2,
  ) {
    super('The database cannot be reached');
  }
}

/** Collects problems while validating so that all of them are reported together. */
export class Problems {
  readonly list: FieldProblem[] = [];
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }
  get empty(): boolean {
    return this.list.length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.list);
  }
}
