/**
 * The row list every concern of the stream reducer writes into: the view items in order,
 * the id counter (an item's id is its position of creation, so keys survive growth), and
 * the dirty flag that lets `snapshot` hand out the same array until something changed.
 * Items are immutable: a change puts a new object in the slot (`replace`).
 */
import type { ViewItem } from "../view-model";

export class RowList {
  #items: ViewItem[] = [];
  #snapshot: readonly ViewItem[] = [];
  #dirty = true;
  #nextId = 0;

  /** A fresh row id (also used for the stats row of a task before it is drawn). */
  newId(): string {
    this.#nextId += 1;
    return `i${this.#nextId}`;
  }

  get length(): number {
    return this.#items.length;
  }

  at(index: number): ViewItem | undefined {
    return this.#items[index];
  }

  push(item: ViewItem): number {
    this.#items.push(item);
    this.#dirty = true;
    return this.#items.length - 1;
  }

  replace(index: number, item: ViewItem): void {
    this.#items[index] = item;
    this.#dirty = true;
  }

  /** Something drawn beside the rows changed (the live stats): the next snapshot is new. */
  touch(): void {
    this.#dirty = true;
  }

  /** The rows, plus `tail` when given (the open task's stats); the same array until a change. */
  snapshot(tail: () => ViewItem | undefined): readonly ViewItem[] {
    if (!this.#dirty) return this.#snapshot;
    this.#dirty = false;
    const extra = tail();
    this.#snapshot = extra === undefined ? [...this.#items] : [...this.#items, extra];
    return this.#snapshot;
  }
}
