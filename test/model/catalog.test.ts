import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/config.js';
import { catalogContent, catalogDomain, catalogMembers, memberLabel, type CatalogCandidate } from '../../src/model/catalog.js';

const catalog = catalogDomain('Catalog.Example.', 42, ['192.0.2.1']);
const candidate = (c: Partial<CatalogCandidate>): CatalogCandidate => ({ id: 1, domain: 'a.test', kind: 'master', status: 1, displayGroup: '', hasCopy: false, ...c });
const lines = (members: CatalogCandidate[]) => {
  const z = catalogContent(catalog, catalogMembers(members), ['ns1.example.net']);
  return [z.soa, ...z.answers].map((r) => `${r.name} ${r.type} ${JSON.stringify(r.data)}`);
};

describe('catalog content (RFC 9432 version 2)', () => {
  it('has the SOA with the stored serial, NS invalid and version 2 even without members', () => {
    expect(lines([])).toEqual([
      expect.stringMatching(/^catalog\.example SOA .*"serial":42/),
      'catalog.example NS {"nameserver":"invalid"}',
      'version.catalog.example TXT {"text":"2"}',
    ]);
  });

  it('lists served masters and served mirrors with a copy, by id, with their group', () => {
    const out = lines([
      candidate({ id: 7, domain: 'mirror.test', kind: 'slave', hasCopy: true }),
      candidate({ id: 3, domain: 'a.test', displayGroup: 'blue' }),
      candidate({ id: 4, domain: 'off.test', status: 0 }),
      candidate({ id: 5, domain: 'edit.test', status: 2 }),
      candidate({ id: 6, domain: 'empty-mirror.test', kind: 'slave', hasCopy: false }),
      candidate({ id: 8, domain: 'off-mirror.test', kind: 'slave', hasCopy: true, status: 0 }),
    ]).slice(3);
    expect(out).toEqual([
      `${memberLabel(3, 'a.test')}.zones.catalog.example PTR {"ptrdname":"a.test"}`,
      `group.${memberLabel(3, 'a.test')}.zones.catalog.example TXT {"text":"blue"}`,
      `${memberLabel(5, 'edit.test')}.zones.catalog.example PTR {"ptrdname":"edit.test"}`,
      `${memberLabel(7, 'mirror.test')}.zones.catalog.example PTR {"ptrdname":"mirror.test"}`,
    ]);
  });

  it('gives a member a label unique by id that changes with its name (a rename ends the old member)', () => {
    expect(memberLabel(3, 'a.test')).toBe(memberLabel(3, 'a.test'));
    expect(memberLabel(3, 'a.test')).toMatch(/^z3-[0-9a-f]{8}$/);
    expect(memberLabel(3, 'b.test')).not.toBe(memberLabel(3, 'a.test'));
    expect(memberLabel(4, 'a.test')).not.toBe(memberLabel(3, 'a.test'));
  });
});

describe('catalog configuration', () => {
  it('reads the name, the secondaries (optionally @PORT for NOTIFY) and the key name', () => {
    expect(parseCatalog('Catalog.Example.', '192.0.2.1, 2001:db8::1@5300', 'Fleet.Key.', 'ops')).toEqual({
      name: 'catalog.example',
      axfr: ['192.0.2.1', '2001:db8::1'],
      notify: [{ address: '192.0.2.1', port: 53 }, { address: '2001:db8::1', port: 5300 }],
      tsig: 'fleet.key',
      tsigOwner: 'ops',
    });
    expect(parseCatalog(undefined, undefined, undefined)).toBeNull();
  });

  it('refuses a bad name, address or port, and secondaries without a catalog', () => {
    expect(() => parseCatalog('nodot', undefined, undefined)).toThrow(/--catalog/);
    expect(() => parseCatalog('c.example', '192.0.2.300', undefined)).toThrow(/--catalog-axfr/);
    expect(() => parseCatalog('c.example', '192.0.2.1@70000', undefined)).toThrow(/--catalog-axfr/);
    expect(() => parseCatalog(undefined, '192.0.2.1', undefined)).toThrow(/need --catalog/);
    // A key name alone would open every zone to whoever made a key of that name first.
    expect(() => parseCatalog('c.example', undefined, 'fleet.key')).toThrow(/--catalog-tsig-owner/);
    expect(() => parseCatalog('c.example', undefined, undefined, 'ops')).toThrow(/needs --catalog-tsig/);
    expect(() => parseCatalog(undefined, undefined, 'k')).toThrow(/need --catalog/);
  });
});
