import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * On PostgreSQL, inserting many records costs less (issue 28: a 10,000-record import).
 *
 * Records' names compare in the "C" collation: bytes, as SQLite's BINARY does. The (domain_id, lower(name))
 * index then compares keys with memcmp where the database's collation (C.UTF-8, say)
 * called strcoll on copies of both, and lower() folds A–Z alone, as SQLite's does, instead of going through
 * wide characters; names are letters, digits, `-`, `_` and `*` (validateOwner), so they fold the same. Queries
 * need no change: `lower(name)` takes the column's collation, and is the index's expression still. The table
 * is not rewritten; only that index is rebuilt, with the table locked while it is.
 *
 * The statement trigger of 013 checks a statement's records' domains with one scan of its rows when they are
 * all of one domain (every batch writer's case), instead of a hash of them and a count of their distinct
 * domains; rows of several domains are checked as before. SQLite has neither: nothing to do there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table records alter column name type text collate "C"`.execute(db);
  await sql`
    create or replace function records_domains_exist() returns trigger language plpgsql set search_path from current as $$
    declare
      first_domain integer;
      last_domain integer;
    begin
      select min(domain_id), max(domain_id) into first_domain, last_domain from new_rows;
      if first_domain = last_domain then
        perform from domains where id = first_domain for key share;
        if found then return null; end if;
      elsif (select count(*) from (select from domains where id in (select domain_id from new_rows) for key share) locked)
         = (select count(distinct domain_id) from new_rows) then
        return null;
      end if;
      raise foreign_key_violation using message = 'insert or update on table "records" violates foreign key constraint "records_domain_id_fkey"',
        detail = 'A domain_id is not present in table "domains".';
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create or replace function records_domains_exist() returns trigger language plpgsql set search_path from current as $$
    begin
      if (select count(*) from (select from domains where id in (select domain_id from new_rows) for key share) locked)
         <> (select count(distinct domain_id) from new_rows) then
        raise foreign_key_violation using message = 'insert or update on table "records" violates foreign key constraint "records_domain_id_fkey"',
          detail = 'A domain_id is not present in table "domains".';
      end if;
      return null;
    end $$`.execute(db);
  await sql`alter table records alter column name type text collate "default"`.execute(db);
}
