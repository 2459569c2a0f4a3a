/** The store composed of its aggregates: each part's methods side by side, none hiding another's. */
import { describe, expect, it } from 'vitest';
import { KyselyAccountStore } from '../../src/store/accounts.js';
import { KyselyApiKeyStore } from '../../src/store/api-keys.js';
import { KyselyCatalogStore } from '../../src/store/catalog.js';
import { KyselyCookieSecretStore } from '../../src/store/cookie-secrets.js';
import { KyselyDnssecStore } from '../../src/store/dnssec.js';
import { KyselyDomainStore } from '../../src/store/domains.js';
import { KyselyEventStore } from '../../src/store/events.js';
import { KyselyJournalStore } from '../../src/store/journal.js';
import { KyselyMirrorStore } from '../../src/store/mirrors.js';
import { KyselyRecordStore } from '../../src/store/records.js';
import { KyselySavepointStore } from '../../src/store/savepoints.js';
import { KyselySecondFactorStore } from '../../src/store/second-factors.js';
import { KyselyTsigKeyStore } from '../../src/store/tsig-keys.js';
import { openStore } from '../../src/store/open.js';

const PARTS = [
  KyselyAccountStore, KyselyApiKeyStore, KyselyTsigKeyStore, KyselyDomainStore, KyselyRecordStore, KyselyMirrorStore,
  KyselyDnssecStore, KyselyJournalStore, KyselyCatalogStore, KyselyEventStore, KyselySavepointStore, KyselyCookieSecretStore,
  KyselySecondFactorStore,
];

const methodNames = (part: { prototype: object }) => Object.getOwnPropertyNames(part.prototype).filter((name) => name !== 'constructor');

describe('the composed store', () => {
  it('has every method of every aggregate, each name once', async () => {
    const names = PARTS.flatMap(methodNames);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    const store = await openStore('sqlite::memory:');
    try {
      for (const name of names) expect(typeof (store as unknown as Record<string, unknown>)[name], name).toBe('function');
      await store.transaction(async (tx) => {
        for (const name of names) expect(typeof (tx as unknown as Record<string, unknown>)[name], name).toBe('function');
      });
    } finally {
      await store.close();
    }
  });
});
