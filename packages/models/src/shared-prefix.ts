/**
 * Message lists that share their leading items by construction, said once by their maker so
 * the wire cache (wire-cache.ts) need not compare a long history item by item per request.
 *
 * A lineage is an append-only sequence whose positions never change; a list marked with
 * (lineage, n) holds, object for object, the lineage's first n items. Two lists of one
 * lineage share min(n, m) leading items without anyone looking at them. Only a token and a
 * number are kept per list (weakly, by the list), never the lists themselves, so no chain of
 * old arrays stays alive. A maker that cannot say so simply marks nothing: the cache then
 * compares, as before.
 */

interface Mark {
  readonly lineage: object;
  readonly length: number;
}

const marks = new WeakMap<readonly object[], Mark>();

/** A new lineage token: one per append-only sequence (a new one after a compaction or any edit). */
export function newLineage(): object {
  return {};
}

/** Says that `list`'s first `length` items are positions 0 … length − 1 of `lineage`. `list` must not be changed after. */
export function markLineagePrefix(list: readonly object[], lineage: object, length: number): void {
  if (!Number.isInteger(length) || length < 0 || length > list.length) throw new RangeError(`markLineagePrefix: ${length} is not a prefix length of a list of ${list.length}`);
  marks.set(list, { lineage, length });
}

/** How many leading items `a` and `b` are known to share without comparing them (0 when nothing was said). */
export function knownSharedPrefix(a: readonly object[], b: readonly object[]): number {
  if (a === b) return a.length;
  const x = marks.get(a);
  const y = marks.get(b);
  if (x === undefined || y === undefined || x.lineage !== y.lineage) return 0;
  return Math.min(x.length, y.length);
}
