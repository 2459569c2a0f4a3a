import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * On PostgreSQL, records' foreign key to domains becomes triggers that check a statement's rows at once: the
 * key checked each inserted row with a query of its own, 40 % of PostgreSQL's time inserting a 10,000-record
 * zone (bench/README.md, import). They keep what the key kept: a record's domain exists, and stays until the
 * writing transaction ends (the rows' domains are locked FOR KEY SHARE, as the key's check locks them, so a
 * domain deleted meanwhile waits, or is found missing); the error is the key's (23503); deleting a domain
 * deletes its records; a domain's id does not change while records name it. (TRUNCATE of domains alone is no
 * longer refused; nothing truncates.) SQLite keeps the key: its check costs little there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  const { rows } = await sql<{ name: string }>`
    select conname as name from pg_constraint where conrelid = 'records'::regclass and contype = 'f'`.execute(db);
  for (const { name } of rows) await sql`alter table records drop constraint ${sql.id(name)}`.execute(db);
  // `set search_path from current`: the functions find this installation's tables whoever's session fires them.
  await sql`
    create function records_domains_exist() returns trigger language plpgsql set search_path from current as $$
    begin
      if (select count(*) from (select from domains where id in (select domain_id from new_rows) for key share) locked)
         <> (select count(distinct domain_id) from new_rows) then
        raise foreign_key_violation using message = 'insert or update on table "records" violates foreign key constraint "records_domain_id_fkey"',
          detail = 'A domain_id is not present in table "domains".';
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger records_domains_exist after insert on records referencing new table as new_rows
    for each statement execute function records_domains_exist()`.execute(db);
  // A record moved to another domain (nothing does this): that one row, checked the same way.
  await sql`
    create function records_domain_moved() returns trigger language plpgsql set search_path from current as $$
    begin
      perform from domains where id = new.domain_id for key share;
      if not found then
        raise foreign_key_violation using message = 'insert or update on table "records" violates foreign key constraint "records_domain_id_fkey"',
          detail = format('Key (domain_id)=(%s) is not present in table "domains".', new.domain_id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger records_domain_moved after update of domain_id on records
    for each row when (old.domain_id is distinct from new.domain_id) execute function records_domain_moved()`.execute(db);
  await sql`
    create function domains_delete_records() returns trigger language plpgsql set search_path from current as $$
    begin
      delete from records where domain_id in (select id from old_rows);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger domains_delete_records after delete on domains referencing old table as old_rows
    for each statement execute function domains_delete_records()`.execute(db);
  await sql`
    create function domains_id_kept() returns trigger language plpgsql set search_path from current as $$
    begin
      if exists (select from records where domain_id = old.id) then
        raise foreign_key_violation using message = 'update on table "domains" violates foreign key constraint "records_domain_id_fkey" on table "records"',
          detail = format('Key (id)=(%s) is still referenced from table "records".', old.id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger domains_id_kept after update of id on domains
    for each row when (old.id is distinct from new.id) execute function domains_id_kept()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger records_domains_exist on records`.execute(db);
  await sql`drop trigger records_domain_moved on records`.execute(db);
  await sql`drop trigger domains_delete_records on domains`.execute(db);
  await sql`drop trigger domains_id_kept on domains`.execute(db);
  await sql`drop function records_domains_exist(), records_domain_moved(), domains_delete_records(), domains_id_kept()`.execute(db);
  await sql`alter table records add constraint records_domain_id_fkey foreign key (domain_id) references domains (id) on delete cascade`.execute(db);
}
