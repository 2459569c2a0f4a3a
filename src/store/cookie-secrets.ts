/** The secrets of DNS server cookies, one per period (model/cookie-secret.ts), shared by the nodes of a cluster. */
import type { Kysely } from 'kysely';
import type { CookieSecret } from '../model/cookie-secret.js';
import { num } from './columns.js';
import type { Database } from './schema.js';

export interface CookieSecretStore {
  /** Stores the secret of each period that has none yet (another node's stays: the first one made wins). */
  addCookieSecrets(secrets: readonly CookieSecret[], now: number): Promise<void>;
  /** The secrets of the periods from `fromPeriod` on, oldest first; older ones are deleted. */
  cookieSecrets(fromPeriod: number): Promise<CookieSecret[]>;
}

export class KyselyCookieSecretStore implements CookieSecretStore {
  constructor(private readonly db: Kysely<Database>) {}

  async addCookieSecrets(secrets: readonly CookieSecret[], now: number): Promise<void> {
    if (secrets.length === 0) return;
    await this.db
      .insertInto('cookie_secrets')
      .values(secrets.map((s) => ({ period: s.period, secret: Buffer.from(s.secret).toString('hex'), created_at: now })))
      .onConflict((oc) => oc.column('period').doNothing())
      .execute();
  }

  async cookieSecrets(fromPeriod: number): Promise<CookieSecret[]> {
    await this.db.deleteFrom('cookie_secrets').where('period', '<', fromPeriod).execute();
    const rows = await this.db.selectFrom('cookie_secrets').select(['period', 'secret']).where('period', '>=', fromPeriod).orderBy('period').execute();
    return rows.map((r) => ({ period: num(r.period), secret: Buffer.from(r.secret, 'hex') }));
  }
}
