/** A user changing their own password: it ends their other panel sessions, not their labelled API keys; audited. */
import { AuthError, ValidationError } from '../model/errors.js';
import { checkAccountWide } from '../model/key-scope.js';
import type { AccountStore } from '../store/accounts.js';
import type { ApiKeyStore } from '../store/api-keys.js';
import type { JournalStore } from '../store/journal.js';
import type { Transactions } from '../store/store.js';
import type { AccountService } from './accounts.js';
import { scopeOf, userIdOf, type Actor } from './actor.js';
import { accountChange } from './audit.js';
import { checkNewPassword, hashPassword } from './passwords.js';

export class PasswordChangeService {
  constructor(
    private readonly store: Transactions<Pick<AccountStore, 'setPasswordHash'> & Pick<ApiKeyStore, 'deleteSessionKeys'> & JournalStore>,
    private readonly accounts: AccountService,
    private readonly now: () => number,
  ) {}

  /**
   * Checks the current password (a wrong one counts against the sign-in throttle, and is a problem of the
   * field `current`, not a 401 that would end the caller's session), sets the new one, and revokes the user's
   * panel sessions except the one asking: whoever signed in with the old password is out. Answers how many went.
   */
  async change(actor: Actor, current: string, next: string): Promise<number> {
    checkAccountWide(scopeOf(actor), 'the password');
    checkNewPassword('new', next);
    await this.accounts.checkPassword(actor.username, current, actor.remoteAddr).catch((e: unknown) => {
      throw e instanceof AuthError ? ValidationError.one('current', 'The current password is not right.') : e;
    });
    const userId = userIdOf(actor);
    const hash = await hashPassword(next);
    return this.store.transaction(async (tx) => {
      await tx.setPasswordHash(userId, hash);
      const revoked = await tx.deleteSessionKeys(userId, actor.key?.id);
      // Whose password, and how many sessions it ended; never a password or its hash.
      await tx.appendJournal([accountChange(actor, this.now(), 'password.change', userId, null, { user_id: userId, username: actor.username, sessions_revoked: revoked })]);
      return revoked;
    });
  }
}
