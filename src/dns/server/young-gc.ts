/**
 * Young-generation collections at a moment of the node's choosing. A write (through either API, DNS UPDATE,
 * an import) leaves a few hundred KB of garbage: building its queries, the request, the zone patch after it.
 * Left alone, V8 scavenges when the young generation is full, 1.5–3 ms later on whatever runs then, and the
 * commonest thing to run right after a write is the query for what it changed (an ACME validator, a
 * resolver asking the new name). So once a write has committed, before its answer is sent, a young
 * generation with little room left is collected at once: the pause lands on the write, which takes
 * milliseconds anyway, and not on the first answers after it. Scavenges come a little earlier, so a little
 * more often (at 70 % rather than 80–100 %); nothing else (old generation, idle time) is touched.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

type MinorGc = (options: { type: 'minor' }) => void;

/**
 * How full the young generation may be after a write. V8 itself collects it at 100 % and, from 80 %
 * (--scavenge-task-trigger), in a task of its own that runs whenever the event loop next gets to it; a
 * write's aftermath (the zone patch, the signed answer, NOTIFY) adds about 2 % of the default 16 MB.
 */
const MAX_FULL = 0.7;

/**
 * V8's gc(): the global one under --expose-gc, otherwise one made for us. The flag, set while one new context
 * is made, puts gc in that context alone (not on globalThis), and is cleared again at once.
 */
function minorGc(): MinorGc | null {
  const global = (globalThis as { gc?: unknown }).gc;
  if (typeof global === 'function') return global as MinorGc;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? (gc as MinorGc) : null;
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Made once per process, on first use (null: this V8 gave none, not asked again). */
let gc: MinorGc | null | undefined;

/**
 * A function to call after each committed write (startDns hears writes on the change bus): it scavenges when
 * the young generation is over MAX_FULL.
 */
export function youngGcAfterWrites(): () => void {
  if (gc === undefined) gc = minorGc();
  const collect = gc;
  if (!collect) return () => {};
  return () => {
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (young && young.space_used_size > MAX_FULL * (young.space_used_size + young.space_available_size)) collect({ type: 'minor' });
  };
}
