/**
 * Passkeys (WebAuthn, with @simplewebauthn/server): a user registers one or more, lists and removes them, and
 * signs in to the panel with one instead of a password and a code. The relying party is the host name the
 * panel is reached under, and the origin the one the browser names, unless the operator fixed them
 * (--webauthn-rp-id, --webauthn-origin). Challenges are kept in the database for five minutes and taken once,
 * so any node of a cluster can take the answer. Failed passkey sign-ins count against the sign-in throttle as
 * wrong passwords do; passkeys added and removed are in the audit trail.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AuthError, ConflictError, LimitError, ValidationError } from '../model/errors.js';
import { checkAccountWide } from '../model/key-scope.js';
import type { Passkey } from '../model/second-factor.js';
import type { JournalStore } from '../store/journal.js';
import type { SecondFactorStore } from '../store/second-factors.js';
import { UniqueViolation, type Transactions } from '../store/store.js';
import type { UserStore } from '../store/users.js';
import type { AccountService, IssuedKey } from './accounts.js';
import { scopeOf, userIdOf, type Actor } from './actor.js';
import { accountChange } from './audit.js';
import type { LoginThrottle } from './throttle.js';

type PasskeyOps = SecondFactorStore & JournalStore;
type PasskeyStore = PasskeyOps & Pick<UserStore, 'userById'> & Transactions<PasskeyOps>;

/** What the operator fixed; absent fields follow the request. */
export interface WebAuthnOptions {
  /** The relying party id (a registrable domain the panel's host name is in), e.g. example.net. */
  rpId?: string | null;
  /** The origins the panel is reached under, e.g. https://dns.example.net. */
  origins?: string[];
}

/** Where a request came from: the host name it was sent to and the origin the browser named. */
export interface RequestSite {
  hostname: string;
  origin: string;
}

export const MAX_PASSKEYS = 20;
export const MAX_PASSKEY_NAME = 100;
const CHALLENGE_MS = 5 * 60_000;
const RP_NAME = 'zonehost';

/** The challenge an answer carries in its client data (base64url JSON); null when there is none to read. */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  try {
    const data = JSON.parse(Buffer.from(String(response.response?.clientDataJSON ?? ''), 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length > 0 && data.challenge.length <= 512 ? data.challenge : null;
  } catch {
    return null;
  }
}

/**
 * The library, loaded when a passkey is first used: it brings ASN.1 and certificate parsers that would add a
 * second or more to every start of the command (the operator's one-shot commands included).
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

/** A passkey as the audit trail shows it (no key material). */
const audited = (p: Passkey) => ({ id: p.id, name: p.name, user_id: p.userId });

const staleAnswer = () => ValidationError.one('response', 'This passkey answer is not for a request made here in the last five minutes (or was used already); start again.');

export class PasskeyService {
  constructor(
    private readonly store: PasskeyStore,
    private readonly accounts: AccountService,
    private readonly now: () => number,
    /** The sign-in throttle: a failed passkey sign-in counts as a wrong password does. */
    private readonly throttle: LoginThrottle,
    private readonly options: WebAuthnOptions = {},
  ) {}

  list(actor: Actor): Promise<Passkey[]> {
    return this.store.passkeysOf(userIdOf(actor));
  }

  /** Options for the browser's navigator.credentials.create(): a discoverable credential, verified by its user. */
  async registrationOptions(actor: Actor, site: RequestSite): Promise<PublicKeyCredentialCreationOptionsJSON> {
    checkAccountWide(scopeOf(actor), 'passkeys');
    const userId = userIdOf(actor);
    const existing = await this.store.passkeysOf(userId);
    if (existing.length >= MAX_PASSKEYS) throw new LimitError('passkeys', `A user may have at most ${MAX_PASSKEYS} passkeys; remove one first.`);
    const options = await (await webauthn()).generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: this.rpId(site),
      userName: actor.username,
      userID: new TextEncoder().encode(`zonehost-user-${userId}`),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.store.addChallenge(options.challenge, 'register', userId, this.now() + CHALLENGE_MS);
    return options;
  }

  /** Stores the passkey the browser made for the options above. */
  async register(actor: Actor, site: RequestSite, response: RegistrationResponseJSON, name?: string): Promise<Passkey> {
    checkAccountWide(scopeOf(actor), 'passkeys');
    const userId = userIdOf(actor);
    const label = (name ?? '').trim() || 'passkey';
    if (label.length > MAX_PASSKEY_NAME) throw ValidationError.one('name', `The name must be at most ${MAX_PASSKEY_NAME} characters long.`);
    const challenge = challengeOf(response);
    if (!challenge || !(await this.store.takeChallenge(challenge, 'register', userId, this.now()))) throw staleAnswer();
    const verification = await (await webauthn()).verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.origins(site),
      expectedRPID: this.rpId(site),
      requireUserVerification: true,
    }).catch((e: unknown) => {
      throw ValidationError.one('response', `The passkey could not be verified: ${e instanceof Error ? e.message : String(e)}`);
    });
    if (!verification.verified || !verification.registrationInfo) throw ValidationError.one('response', 'The passkey could not be verified.');
    const { credential } = verification.registrationInfo;
    const row = {
      userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: label,
      createdAt: this.now(),
    };
    return this.store
      .transaction(async (tx) => {
        const added = await tx.addPasskey(row);
        await tx.appendJournal([accountChange(actor, row.createdAt, 'passkey.create', added.id, null, audited(added))]);
        return added;
      })
      .catch((e: unknown) => {
        if (e instanceof UniqueViolation) throw new ConflictError('response', 'This passkey is registered already.');
        throw e;
      });
  }

  async remove(actor: Actor, id: number): Promise<boolean> {
    checkAccountWide(scopeOf(actor), 'passkeys');
    const userId = userIdOf(actor);
    const passkey = (await this.store.passkeysOf(userId)).find((p) => p.id === id);
    if (!passkey) return false;
    return this.store.transaction(async (tx) => {
      const done = await tx.deletePasskey(userId, id);
      if (done) await tx.appendJournal([accountChange(actor, this.now(), 'passkey.delete', id, audited(passkey), null)]);
      return done;
    });
  }

  /** Options for navigator.credentials.get() to sign in: any of the site's discoverable passkeys. */
  async signInOptions(site: RequestSite): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await (await webauthn()).generateAuthenticationOptions({ rpID: this.rpId(site), userVerification: 'required' });
    await this.store.addChallenge(options.challenge, 'sign-in', null, this.now() + CHALLENGE_MS);
    return options;
  }

  /**
   * Signs in with a passkey's answer to the options above: a panel session key of its user. AuthError for a
   * passkey nobody has here or a signature that does not verify, as for a wrong password; each failure (a stale
   * or unreadable answer too) counts against the throttle, for the passkey's user and the client's address.
   */
  async signIn(site: RequestSite, response: AuthenticationResponseJSON, opts: { label?: string; expiresHours?: number; remoteAddr?: string }): Promise<IssuedKey> {
    const address = opts.remoteAddr ?? '';
    const passkey = await this.store.passkeyByCredential(String(response.id));
    const username = (passkey && (await this.store.userById(passkey.userId))?.username) ?? null;
    await this.throttle.check(username, address);
    const { proven, counter } = await this.verify(site, response, passkey).catch(async (e: unknown) => {
      if (e instanceof AuthError || e instanceof ValidationError) await this.throttle.failed(username, address);
      throw e;
    });
    await this.store.passkeyUsed(proven.id, counter, this.now());
    if (username !== null) await this.throttle.succeeded(username);
    return this.accounts.issueSessionFor(proven.userId, opts);
  }

  /** Checks an answer to sign-in options against the passkey it names: that passkey, and its authenticator's new counter. */
  private async verify(site: RequestSite, response: AuthenticationResponseJSON, passkey: Passkey | undefined): Promise<{ proven: Passkey; counter: number }> {
    const challenge = challengeOf(response);
    if (!challenge || !(await this.store.takeChallenge(challenge, 'sign-in', null, this.now()))) throw staleAnswer();
    if (!passkey) throw new AuthError();
    const verification = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.origins(site),
      expectedRPID: this.rpId(site),
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    }).catch(() => {
      throw new AuthError();
    });
    if (!verification.verified) throw new AuthError();
    return { proven: passkey, counter: verification.authenticationInfo.newCounter };
  }

  private rpId(site: RequestSite): string {
    return this.options.rpId ?? site.hostname;
  }

  private origins(site: RequestSite): string[] {
    return this.options.origins?.length ? this.options.origins : [site.origin];
  }
}
