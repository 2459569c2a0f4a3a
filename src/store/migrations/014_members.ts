import { sql, type Kysely } from 'kysely';
import { idColumn, idKey, isPostgres, timeColumn } from './helpers.js';

/**
 * Members of an account (issue 30): the users who sign in to it, each with a role and, optionally, the only
 * domains they may act on. Every existing account gets one user, its owner, with the account's name and
 * password and the account's id as its own id; from now on a new account takes its owner's id (the store
 * inserts the owner first), so user ids and account ids come from one sequence and never collide.
 *
 * No foreign key to accounts: an account's owner is inserted before its account. Deleting an account deletes
 * its users (AccountStore.deleteAccount). API keys and TSIG keys remember the member who made them
 * (`user_id`; existing ones their account's owner), and the change journal names the member behind each change.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    // '' until the member accepts the invitation and sets one (no password verifies against '').
    .addColumn('password_hash', 'text', (c) => c.notNull())
    // owner, admin, editor or viewer (model/roles.ts).
    .addColumn('role', 'text', (c) => c.notNull())
    // JSON array of domain ids, or null: every domain of the account, also those made later.
    .addColumn('domains', 'text')
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    // The pending invitation: its token's hash (never the token) and when it stops working.
    .addColumn('invitation_hash', 'text')
    .addColumn('invitation_expires_at', timeColumn(db))
    .execute();
  await db.schema.createIndex('users_account').on('users').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('users_invitation').on('users').column('invitation_hash').execute();
  await sql`insert into users (id, account_id, username, password_hash, role, domains, created_at)
            select id, id, username, password_hash, 'owner', null, created_at from accounts`.execute(db);
  if (isPostgres(db)) {
    // Explicit ids leave the identity sequence behind: the next user (and account) id follows every id used.
    await sql`with used as (select greatest((select coalesce(max(id), 0) from users),
                coalesce(pg_sequence_last_value(pg_get_serial_sequence('accounts', 'id')::regclass), 0)) as n)
              select setval(pg_get_serial_sequence('users', 'id'), greatest(n, 1), n > 0) from used`.execute(db);
  } else {
    // AUTOINCREMENT: users' sequence starts past every account id ever handed out, so none is used again.
    await sql`insert into sqlite_sequence (name, seq) select 'users', coalesce((select seq from sqlite_sequence where name = 'accounts'), 0)
              where not exists (select 1 from sqlite_sequence where name = 'users')`.execute(db);
    await sql`update sqlite_sequence set seq = max(seq, coalesce((select seq from sqlite_sequence where name = 'accounts'), 0)) where name = 'users'`.execute(db);
  }
  for (const table of ['api_keys', 'tsig_keys']) {
    await db.schema.alterTable(table).addColumn('user_id', 'integer').execute();
    await sql`update ${sql.table(table)} set user_id = account_id`.execute(db);
    await db.schema.createIndex(`${table}_user`).on(table).column('user_id').execute();
  }
  // The member behind each change: id and user name (kept as it was, the member may be removed since).
  await db.schema.alterTable('changes').addColumn('user_id', 'integer').execute();
  await db.schema.alterTable('changes').addColumn('username', 'text', (c) => c.notNull().defaultTo('')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['username', 'user_id']) await db.schema.alterTable('changes').dropColumn(column).execute();
  for (const table of ['api_keys', 'tsig_keys']) {
    await db.schema.dropIndex(`${table}_user`).execute();
    await db.schema.alterTable(table).dropColumn('user_id').execute();
  }
  await db.schema.dropTable('users').execute();
}
