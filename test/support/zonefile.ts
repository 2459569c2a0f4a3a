/**
 * Store invariant for the hostile-input suites: every master zone of a running test server, exported as
 * the master file the server's content makes, is accepted by BIND's named-checkzone (Debian bind9-utils).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { zoneContent } from '../../src/model/zone.js';
import { zoneFile } from '../../src/model/zonefile.js';
import type { TestServer } from './server.js';

const run = promisify(execFile);

/** Runs `named-checkzone -i local`; resolves to null when it accepts the file, else to its output. */
export async function namedCheckzone(zone: string, file: string): Promise<string | null> {
  try {
    await run('named-checkzone', ['-i', 'local', zone, file]);
    return null;
  } catch (e) {
    const r = e as { stdout?: string; stderr?: string; message: string };
    return `${r.stdout ?? ''}${r.stderr ?? ''}` || r.message;
  }
}

/** Exports every master zone (whatever its status: it may be activated again) and fails listing each refusal. */
export async function checkAllZones(server: TestServer): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-zonefile-'));
  const failures: string[] = [];
  try {
    const keys = (await server.services.store.domainKeys()).filter((d) => d.kind === 'master');
    for (const { id } of keys) {
      const d = await server.services.store.domainById(id);
      if (!d) continue;
      let text: string;
      try {
        // ALIAS is PowerDNS's type, which BIND does not know: left out of what named-checkzone reads.
        const records = (await server.services.store.listRecords(d.id)).filter((r) => r.type !== 'ALIAS');
        text = zoneFile(zoneContent(d, records, server.nameservers));
      } catch (e) {
        failures.push(`${d.domain}: cannot be exported: ${(e as Error).message}`);
        continue;
      }
      const file = join(dir, `${d.id}.zone`);
      writeFileSync(file, text);
      const refusal = await namedCheckzone(d.domain, file);
      if (refusal !== null) failures.push(`${d.domain}: named-checkzone refused it:\n${refusal}\n--- zone file (start) ---\n${text.slice(0, 4000)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) throw new Error(`${failures.length} zone(s) fail the zone-file check:\n${failures.join('\n\n')}`);
}
