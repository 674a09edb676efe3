/**
 * Session-wide tool-call id allocation.
 *
 * Providers do not all give unique call ids: some reuse the function name or a per-response
 * counter, and Gemini gives none (the gateway mints them). Pairing outputs with calls, in the
 * Trace and on resume, needs ids unique across the whole session, so a repeated provider id
 * gets a `#n` suffix. The mapping is per response: every fragment of one call in one response
 * maps to the same session id.
 */
export class ToolCallIdAllocator {
  readonly #used = new Set<string>();

  /** Mark ids as taken (resume seeds the allocator from the trace). */
  reserve(ids: Iterable<string>): void {
    for (const id of ids) this.#used.add(id);
  }

  /** A session-unique id for a provider id; the provider id itself when it is still free. */
  allocate(providerId: string): string {
    const base = providerId === "" ? "call" : providerId;
    let id = base;
    for (let n = 2; this.#used.has(id); n++) id = `${base}#${n}`;
    this.#used.add(id);
    return id;
  }

  /** A mapper for one response: the same provider id always maps to the same session id. */
  forResponse(): (providerId: string) => string {
    const seen = new Map<string, string>();
    return (providerId) => {
      let id = seen.get(providerId);
      if (id === undefined) {
        id = this.allocate(providerId);
        seen.set(providerId, id);
      }
      return id;
    };
  }
}
