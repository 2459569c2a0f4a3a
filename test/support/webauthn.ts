/**
 * A software passkey for tests that talk to the API without a browser (the Chromium tests use the DevTools
 * protocol's virtual authenticator instead): an ES256 key pair that answers WebAuthn registration options with
 * a "none" attestation and sign-in options with an assertion, as a platform authenticator that verified its
 * user would, for the origin given. CBOR comes from @simplewebauthn/server's helpers.
 */
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();
/** User present, user verified; AT: attested credential data follows. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftPasskey {
  readonly credentialId = randomBytes(32);
  private readonly key: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private counter = 0;
  /** The user handle the registration options gave, returned at sign-in. */
  private userHandle = '';

  constructor(
    /** e.g. http://127.0.0.1:8080: what the browser would put in clientDataJSON. */
    readonly origin: string,
    /** The relying party id the options name (the origin's host name unless the server fixed another). */
    readonly rpId = new URL(origin).hostname,
  ) {}

  get id(): string {
    return b64url(this.credentialId);
  }

  /** navigator.credentials.create()'s answer to registration options (as @simplewebauthn/browser sends it). */
  register(options: { challenge: string; user: { id: string } }): object {
    this.userHandle = options.user.id;
    const jwk = this.key.publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([this.authData(UP | UV | AT), Buffer.alloc(16), idLength, this.credentialId, Buffer.from(isoCBOR.encode(cose))]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: this.clientData('webauthn.create', options.challenge), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get()'s answer to sign-in options. */
  signIn(options: { challenge: string }): object {
    this.counter += 1;
    const authData = this.authData(UP | UV);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signature = sign('sha256', Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]), this.key.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON, authenticatorData: b64url(authData), signature: b64url(signature), userHandle: this.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private authData(flags: number): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string): string {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false })).toString('base64url');
  }
}
