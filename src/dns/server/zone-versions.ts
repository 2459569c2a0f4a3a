/**
 * Makes the zone versions the zone cache installs (zone-cache.ts decides when): a zone as the store serves
 * it built whole, or the version in memory patched at the names a journal delta touched, each with its
 * signed view when the zone is signed (ours with our keys, a mirror's as its master signed it).
 */
import { dnssecApex, type ZoneSigning } from '../../model/dnssec.js';
import { packZone, unpackZone, type ZoneContent } from '../../model/zone.js';
import type { ServedZone, ZoneDelta } from '../../services/zones.js';
import type { AliasUsers } from '../alias/users.js';
import { signZone } from '../dnssec/online.js';
import { presigned } from '../dnssec/presigned.js';
import type { SignedView } from '../dnssec/secure.js';
import type { SignatureCache } from '../dnssec/sign.js';
import { buildZone, cutAmong, patchZone, type Zone } from '../zone/zone.js';

export class ZoneVersions {
  /** The signed view of each zone version that is signed. */
  private readonly signedZones = new WeakMap<Zone, SignedView>();
  /** What each signed zone version was signed with, for the patches made from it (ZoneDelta.signing). */
  private readonly signings = new WeakMap<Zone, ZoneSigning>();

  constructor(
    /** Where our signed zones' signatures are made and kept (shared with transfers). */
    private readonly signatures: SignatureCache,
    private readonly log: { warn(obj: object, msg: string): void },
    /** Told of each version's ALIAS records, whose targets are resolved while a zone has them. */
    private readonly aliases?: AliasUsers,
  ) {}

  /** The signed view of a zone version, when the zone is signed. */
  signed(zone: Zone): SignedView | undefined {
    return this.signedZones.get(zone);
  }

  /**
   * The lookup structure of a zone as served (null: not served), reporting the records left out of it.
   * `before` is the version it replaces, whose NSEC3 hashes the new chain borrows.
   */
  build(z: ServedZone | null, before: Zone | undefined): Zone | null {
    if (!z) return null;
    this.aliases?.update(z.domain.id, z.content.answers);
    return this.view(z, buildZone(z.domain.id, this.served(z), z.expiresAt, this.skip(z.domain.domain)), before);
  }

  /**
   * A zone as text to build from when a query or a change first needs it (`wake`), for a master zone neither
   * signed nor steered (model/zone.ts's packZone): about a quarter of the memory of its lookup structure, and
   * most zones of a large node are seldom asked. Null for any other zone, which is built now. The zone's
   * ALIAS targets are taken now.
   */
  asleep(z: ServedZone): string | null {
    if (z.signing || z.expiresAt !== null || z.content.answers.some((a) => a.steered)) return null;
    this.aliases?.update(z.domain.id, z.content.answers);
    return packZone(z.content);
  }

  /** The zone `asleep` gave the text of, built (as `build` would have: unsigned, no view). */
  wake(id: number, text: string): Zone {
    const content = unpackZone(text);
    return buildZone(id, content, null, this.skip(content.soa.name));
  }

  /**
   * The next version of `before` from a delta: the names it touched made anew in its map of names. Its
   * NSEC3 chain is patched at those names too, unless a zone cut was made, moved or unmade among them
   * (what lies below a cut leaves the chain or joins it): then it is made anew.
   */
  patch(before: Zone, delta: ZoneDelta): Zone {
    const next: ServedZone = delta.signing === undefined ? { ...delta, signing: this.signings.get(before) ?? null } : delta;
    const cut = cutAmong(before, delta.names);
    const zone = patchZone(before, this.served(next), delta.names, this.skip(next.domain.domain));
    this.aliases?.update(next.domain.id, next.content.answers, delta.names);
    return this.view(next, zone, before, cut || cutAmong(zone, delta.names) ? undefined : delta.names);
  }

  /** A signed zone's content also holds its DNSKEY, CDS, CDNSKEY and NSEC3PARAM records. */
  private served({ content, signing }: ServedZone): ZoneContent {
    return signing ? { soa: content.soa, answers: [...content.answers, ...dnssecApex(content.soa.name, signing)] } : content;
  }

  private skip(domain: string): (why: string) => void {
    return (why) => this.log.warn({ domain, why }, 'record not served');
  }

  /**
   * Attaches the signed view of a new zone version, if signed. Its NSEC3 chain is made from the version
   * before's: patched at the names `touched` when the version is a patch, else with its hashes lent.
   */
  private view({ signing, expiresAt }: ServedZone, zone: Zone, before: Zone | undefined, touched?: ReadonlySet<string>): Zone {
    const view = signing ? signZone(zone, signing, this.signatures, before && this.signedZones.get(before), touched) : expiresAt !== null ? presigned(zone) : undefined;
    if (view) this.signedZones.set(zone, view);
    if (signing) this.signings.set(zone, signing);
    return zone;
  }
}
