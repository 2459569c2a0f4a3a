/** Versioned migrations, applied in name order at start-up (and by `zonehost migrate`). */
import type { Migration, MigrationProvider } from 'kysely';
import * as m001 from './001_initial.js';
import * as m002 from './002_mirrors.js';
import * as m003 from './003_canonical_aaaa.js';
import * as m004 from './004_record_data.js';
import * as m005 from './005_tsig_keys.js';
import * as m006 from './006_dnssec.js';
import * as m007 from './007_catalog.js';
import * as m008 from './008_key_scopes.js';
import * as m009 from './009_changes_serial.js';
import * as m010 from './010_cookie_secrets.js';
import * as m011 from './011_account_controls.js';
import * as m012 from './012_mirror_tls.js';
import * as m013 from './013_records_domain_check.js';
import * as m014 from './014_members.js';
import * as m015 from './015_second_factors.js';
import * as m016 from './016_primary_kind.js';
import * as m017 from './017_domain_tags.js';
import * as m019 from './019_healthchecks.js';
import * as m021 from './021_mirror_tls_auth.js';
import * as m022 from './022_records_insert_cost.js';

const MIGRATIONS: Record<string, Migration> = {
  '001_initial': m001,
  '002_mirrors': m002,
  '003_canonical_aaaa': m003,
  '004_record_data': m004,
  '005_tsig_keys': m005,
  '006_dnssec': m006,
  '007_catalog': m007,
  '008_key_scopes': m008,
  '009_changes_serial': m009,
  '010_cookie_secrets': m010,
  '011_account_controls': m011,
  '012_mirror_tls': m012,
  '013_records_domain_check': m013,
  '014_members': m014,
  '015_second_factors': m015,
  '016_primary_kind': m016,
  '017_domain_tags': m017,
  '019_healthchecks': m019,
  '021_mirror_tls_auth': m021,
  '022_records_insert_cost': m022,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
