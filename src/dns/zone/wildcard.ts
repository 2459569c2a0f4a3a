/**
 * Wildcards (RFC 4592): a name that does not exist is answered from the "*" name directly below its
 * closest encloser, when there is one, as if it owned the wildcard's records. closestEncloser() hands over
 * only names that do not exist and lie above every zone cut, so a wildcard never answers for an existing
 * name (an empty non-terminal included) nor at or below a delegation.
 */
import type { Zone, ZoneNode } from './zone.js';

/** The wildcard's RRsets that synthesise a name whose closest encloser is `encloser`, or undefined when it has none. */
export function wildcardAt(zone: Zone, encloser: string): ZoneNode | undefined {
  return zone.nodes.get('*.' + encloser);
}
