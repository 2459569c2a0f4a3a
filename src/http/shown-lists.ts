/**
 * Representations of lists a service hands out again unchanged: a domain list the store kept (frozen, see
 * DialectSql.rowWithList's `keep`) is the same array for as long as none of its rows changes, so what a door
 * makes of it is made once, and frozen in turn, so that its writer may keep the text it wrote (interface B's
 * output-checks.ts, interface A's envelope.ts).
 */
const shown = new WeakMap<readonly object[], WeakMap<(list: never) => unknown, readonly unknown[]>>();

/**
 * `show(list)`, a list of objects made of `list` alone: made once per frozen list and `show`, and frozen with its
 * items; made anew for any other list.
 */
export function shownList<T extends object, R extends object>(list: readonly T[], show: (list: readonly T[]) => R[]): readonly R[] {
  if (!Object.isFrozen(list)) return show(list);
  let byShow = shown.get(list);
  if (!byShow) shown.set(list, (byShow = new WeakMap()));
  let made = byShow.get(show) as readonly R[] | undefined;
  if (!made) byShow.set(show, (made = Object.freeze(show(list).map((item) => Object.freeze(item)))));
  return made;
}
