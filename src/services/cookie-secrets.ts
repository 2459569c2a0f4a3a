/**
 * The DNS cookie secrets every node makes and checks cookies with (model/cookie-secret.ts). Whichever node asks
 * first makes the secrets of this period and the next and stores them, the first one stored winning, so the
 * nodes of a cluster agree without a leader, a node that restarts finds the same secrets, and each secret is
 * known everywhere a period before it makes cookies. The one before stays valid a period longer.
 */
import { randomBytes } from 'node:crypto';
import { COOKIE_SECRET_BYTES, cookiePeriod, type CookieSecret } from '../model/cookie-secret.js';
import type { CookieSecretStore } from '../store/cookie-secrets.js';

export class CookieSecretService {
  constructor(
    private readonly store: CookieSecretStore,
    private readonly now: () => number,
  ) {}

  /** The secrets valid now, oldest first: the last period's, this period's and the next one's. */
  async current(): Promise<CookieSecret[]> {
    const now = this.now();
    const period = cookiePeriod(now);
    let secrets = await this.store.cookieSecrets(period - 1);
    const missing = [period, period + 1].filter((p) => !secrets.some((s) => s.period === p));
    if (missing.length > 0) {
      await this.store.addCookieSecrets(missing.map((p) => ({ period: p, secret: randomBytes(COOKIE_SECRET_BYTES) })), now);
      secrets = await this.store.cookieSecrets(period - 1);
    }
    return secrets;
  }
}
