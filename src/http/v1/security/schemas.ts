/** Schemas of a user's second factors and password (/v1/me/...), the account's require_2fa, and passkey sign-in. */
import { Type } from '@sinclair/typebox';
import { MAX_PASSWORD } from '../../../services/passwords.js';
import { MAX_PASSKEY_NAME } from '../../../services/passkeys.js';
import { DEFAULT_KEY_HOURS, MAX_KEY_HOURS, MAX_LABEL } from '../../../services/accounts.js';
import { NewApiKey } from '../account/schemas.js';
import { timestamp } from '../shared-schemas.js';

export const TotpStatus = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether sign-ins with the password need a code' }),
    recovery_codes_left: Type.Integer({ minimum: 0, description: 'Unused recovery codes (0 while TOTP is off)' }),
  },
  { additionalProperties: false, title: 'TotpStatus' },
);

export const TotpSetup = Type.Object(
  {
    secret: Type.String({ description: 'The shared secret, base32, for typing into an authenticator app' }),
    uri: Type.String({ description: 'The same as an otpauth:// URI (what the QR code holds): SHA-1, 6 digits, 30 s' }),
  },
  { additionalProperties: false, title: 'TotpSetup' },
);

export const CodeBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'The six digits the authenticator app shows now (or, to turn TOTP off, a recovery code)' }) },
  { additionalProperties: false },
);

export const RecoveryCodes = Type.Object(
  {
    recovery_codes: Type.Array(Type.String(), {
      description: 'Ten one-time codes for signing in without the authenticator app, each usable once. Shown only this once; keep them apart from the password.',
    }),
  },
  { additionalProperties: false, title: 'RecoveryCodes' },
);

export const PasswordChange = Type.Object(
  {
    current: Type.String({ minLength: 1, maxLength: MAX_PASSWORD }),
    new: Type.String({ minLength: 1, maxLength: MAX_PASSWORD }),
  },
  { additionalProperties: false },
);

export const PasswordChanged = Type.Object(
  { sessions_revoked: Type.Integer({ minimum: 0, description: 'Panel sign-ins (other than this request\'s) that were signed out' }) },
  { additionalProperties: false },
);

export const Passkey = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    created: Type.String({ format: 'date-time' }),
    last_used: timestamp('When it last signed in; null for never'),
  },
  { additionalProperties: false, title: 'Passkey' },
);

export const PasskeyParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Passkey id' }) });

/** Options for the browser's WebAuthn call, as @simplewebauthn/browser takes them (`optionsJSON`). */
export const WebAuthnOptions = Type.Object(
  { challenge: Type.String() },
  { additionalProperties: true, title: 'WebAuthnOptions', description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON (W3C WebAuthn Level 3)' },
);

/** What the browser's WebAuthn call answered (a RegistrationResponseJSON or AuthenticationResponseJSON). */
const WebAuthnAnswer = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1024 }),
    rawId: Type.String({ minLength: 1, maxLength: 1024 }),
    type: Type.Literal('public-key'),
    response: Type.Object({ clientDataJSON: Type.String({ minLength: 1, maxLength: 16384 }) }, { additionalProperties: true }),
  },
  { additionalProperties: true, description: 'The credential @simplewebauthn/browser answered, as it is' },
);

export const PasskeyCreate = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: MAX_PASSKEY_NAME, description: 'A name to recognise it by, e.g. "laptop"; default "passkey"' })),
    response: WebAuthnAnswer,
  },
  { additionalProperties: false },
);

export const PasskeySignIn = Type.Object(
  {
    response: WebAuthnAnswer,
    label: Type.Optional(Type.String({ maxLength: MAX_LABEL, description: 'The new key\'s label; default ""' })),
    expires: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_KEY_HOURS, description: `Hours until the key expires; 0 means never. Default ${DEFAULT_KEY_HOURS}.` })),
  },
  { additionalProperties: false },
);

/** A passkey sign-in's key, with the user it signed in (the caller named none). */
export const PasskeySession = Type.Object(
  { ...NewApiKey.properties, username: Type.String({ description: 'The user the passkey signed in' }) },
  { additionalProperties: false, title: 'PasskeySession' },
);

export const AccountSettings = Type.Object(
  { require_2fa: Type.Boolean({ description: 'Members without a second factor (TOTP or a passkey) may only set one up' }) },
  { additionalProperties: false, title: 'AccountSettings' },
);

export const AccountSettingsPatch = Type.Object({ require_2fa: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
