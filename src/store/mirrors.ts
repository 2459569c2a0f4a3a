/** Zone mirrors' transfer state: when the last transfer was tried and succeeded, and the copy it brought. */
import type { Kysely } from 'kysely';
import { num, numOrNull } from './columns.js';
import type { Database } from './schema.js';

/** Transfer state of a zone mirror; `zone` is the last good copy (JSON text), null before the first transfer. */
export interface MirrorState {
  domainId: number;
  serial: number | null;
  lastSuccess: number | null;
  lastAttempt: number | null;
  lastError: string | null;
  zone: string | null;
}

export interface MirrorStore {
  mirrorState(domainId: number): Promise<MirrorState | undefined>;
  /** Inserts or replaces the state row of a mirror. */
  saveMirrorState(s: MirrorState): Promise<void>;
}

export class KyselyMirrorStore implements MirrorStore {
  constructor(private readonly db: Kysely<Database>) {}

  async mirrorState(domainId: number): Promise<MirrorState | undefined> {
    const r = await this.db.selectFrom('mirror_state').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
    return (
      r && {
        domainId: num(r.domain_id),
        serial: numOrNull(r.serial),
        lastSuccess: numOrNull(r.last_success),
        lastAttempt: numOrNull(r.last_attempt),
        lastError: r.last_error,
        zone: r.zone,
      }
    );
  }

  async saveMirrorState(s: MirrorState): Promise<void> {
    const row = { serial: s.serial, last_success: s.lastSuccess, last_attempt: s.lastAttempt, last_error: s.lastError, zone: s.zone };
    await this.db
      .insertInto('mirror_state')
      .values({ domain_id: s.domainId, ...row })
      .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
      .execute();
  }
}
