/**
 * SharedByContent: keeps one copy of a value that is read again and again and rarely changes.
 *
 * An agent's state is read anew for every session (an edit applies to the sessions started
 * after it), and each read builds fresh objects: a server with hundreds of sessions of one
 * agent would hold hundreds of identical parsed configs, prompt templates and skill lists (and
 * every string parsed out of a file keeps that file's whole text alive). `share(fresh)` answers
 * the copy it holds when `fresh` has the same content (its JSON), and otherwise keeps `fresh`
 * as the new copy. Holders treat the value as read-only; the fresh read of an unchanged value
 * is left to the garbage collector.
 */
export class SharedByContent<T> {
  #held: { fingerprint: string; value: T } | undefined;

  share(fresh: T): T {
    const fingerprint = JSON.stringify(fresh);
    if (this.#held !== undefined && this.#held.fingerprint === fingerprint) return this.#held.value;
    this.#held = { fingerprint, value: fresh };
    return fresh;
  }
}
