/**
 * Sequence: an immutable list with O(1) append, for the parts of session state that grow with
 * the session (the context, the tool call ids).
 *
 * `evolve` must never change the state it is given (snapshots of earlier positions share
 * structure with later ones), and copying a 50 000-message context on every event would make
 * a fold quadratic. A Sequence is a chain of nodes pointing backwards: appending makes one
 * node and shares the rest. `toArray()` walks the chain once and caches the result on the
 * node, which is safe because a node never changes.
 */
export class Sequence<A> {
  static readonly #empty = new Sequence<never>(undefined, undefined, 0);

  readonly #before: Sequence<A> | undefined;
  readonly #last: A | undefined;
  readonly size: number;
  #array: readonly A[] | undefined;

  private constructor(before: Sequence<A> | undefined, last: A | undefined, size: number) {
    this.#before = before;
    this.#last = last;
    this.size = size;
  }

  static empty<A>(): Sequence<A> {
    return Sequence.#empty as Sequence<A>;
  }

  static from<A>(items: Iterable<A>): Sequence<A> {
    let s = Sequence.empty<A>();
    for (const item of items) s = s.append(item);
    return s;
  }

  append(item: A): Sequence<A> {
    return new Sequence(this, item, this.size + 1);
  }

  concat(items: Iterable<A>): Sequence<A> {
    let s: Sequence<A> = this;
    for (const item of items) s = s.append(item);
    return s;
  }

  get last(): A | undefined {
    return this.#last;
  }

  /**
   * When this sequence is `prefix` with items appended (the very same nodes, as `append` and
   * `concat` leave them), the items appended, oldest first; undefined otherwise. Snapshots
   * use it to store only what a list gained since the last snapshot.
   */
  itemsAfter(prefix: Sequence<A>): A[] | undefined {
    if (prefix.size > this.size) return undefined;
    const out = new Array<A>(this.size - prefix.size);
    let node: Sequence<A> | undefined = this;
    for (let i = out.length - 1; i >= 0; i--) {
      if (node === undefined) return undefined;
      out[i] = node.#last as A;
      node = node.#before;
    }
    // The empty sequence is shared, but an empty prefix is a prefix of anything.
    return node === prefix || prefix.size === 0 ? out : undefined;
  }

  /**
   * `f` of each item, oldest first, in a new array, without caching anything on the nodes
   * (unlike `toArray`): what a model request builds from the live context on every turn. A
   * cache there would stay on each turn's node while later nodes point back to it, holding a
   * copy of the whole context per turn. A cached ancestor (a resumed context) is copied from.
   */
  mapToArray<B>(f: (item: A) => B): B[] {
    const out = new Array<B>(this.size);
    let node: Sequence<A> | undefined = this;
    for (let i = this.size - 1; i >= 0 && node !== undefined; i--) {
      if (node.#array !== undefined) {
        const cached = node.#array;
        for (let j = 0; j <= i; j++) out[j] = f(cached[j]!);
        break;
      }
      out[i] = f(node.#last as A);
      node = node.#before;
    }
    return out;
  }

  /** The items, oldest first. The same array is returned on every call: do not change it. */
  toArray(): readonly A[] {
    if (this.#array !== undefined) return this.#array;
    const out = new Array<A>(this.size);
    let node: Sequence<A> | undefined = this;
    for (let i = this.size - 1; i >= 0 && node !== undefined; i--) {
      // A cached ancestor ends the walk early.
      if (node.#array !== undefined) {
        for (let j = 0; j <= i; j++) out[j] = node.#array[j]!;
        break;
      }
      out[i] = node.#last as A;
      node = node.#before;
    }
    this.#array = out;
    return out;
  }
}
