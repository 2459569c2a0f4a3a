/** knotd as a catalog consumer, for the tests (consumers.ts) and the bench (bench/catalog); no test runner imports, so the bench can load it. */

/**
 * knotd's configuration as a catalog consumer (`catalog-role: interpret`): zonehost at `primary`
 * (address@port), reached from `via`, is the primary of the catalog and, through the template `members`, of
 * every member zone; zones are kept in `storage`, never written as zone files.
 */
export function knotCatalogConfig(catalog: string, primary: string, via: string, storage: string): string {
  const common = `    master: zonehost
    acl: notify_from_zonehost
    storage: "${storage}"
    zonefile-sync: -1
    zonefile-load: none
    journal-content: none`;
  return `remote:
  - id: zonehost
    address: ${primary}
    via: ${via}
acl:
  - id: notify_from_zonehost
    address: 127.0.0.0/8
    action: notify
template:
  - id: members
${common}
zone:
  - domain: ${catalog}
${common}
    catalog-role: interpret
    catalog-template: members
`;
}
