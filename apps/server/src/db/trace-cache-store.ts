/**
 * Derived caches of the trace scan: which files a session has (with size and mtime, so an
 * unchanged file is not read again at the next start) and what the session's first meta
 * says about its source. Always safe to drop: `--reindex` does exactly that and rescans.
 */
import type { FactsDb } from "./facts-db.js";

export interface TraceFileEntry {
  path: string;
  sessionId: string;
  fileIndex: number;
  size: number;
  mtimeMs: number;
}

export class TraceCacheStore {
  readonly #facts: FactsDb;

  constructor(facts: FactsDb) {
    this.#facts = facts;
  }

  /** True when the cache already knows this file at this size and mtime. */
  isCurrent(path: string, size: number, mtimeMs: number): boolean {
    const row = this.#facts.first(this.#facts.query.selectFrom("trace_files").select(["size", "mtime_ms"]).where("path", "=", path));
    return row !== undefined && row.size === size && row.mtime_ms === Math.floor(mtimeMs);
  }

  recordFile(f: TraceFileEntry): void {
    const q = this.#facts.query
      .insertInto("trace_files")
      .values({ path: f.path, session_id: f.sessionId, file_index: f.fileIndex, size: f.size, mtime_ms: Math.floor(f.mtimeMs) })
      .onConflict((oc) => oc.column("path").doUpdateSet((eb) => ({ size: eb.ref("excluded.size"), mtime_ms: eb.ref("excluded.mtime_ms") })));
    this.#facts.run(q);
  }

  recordSession(s: { sessionId: string; projectId: string; agentId: string; source: string | null; fileCount: number; mtimeMs: number }): void {
    const q = this.#facts.query
      .insertInto("trace_sessions")
      .values({ session_id: s.sessionId, project_id: s.projectId, agent_id: s.agentId, source: s.source, file_count: s.fileCount, mtime_ms: Math.floor(s.mtimeMs) })
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet((eb) => ({ source: eb.ref("excluded.source"), file_count: eb.ref("excluded.file_count"), mtime_ms: eb.ref("excluded.mtime_ms") })),
      );
    this.#facts.run(q);
  }

  forget(sessionId: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("trace_sessions").where("session_id", "=", sessionId));
    this.#facts.run(this.#facts.query.deleteFrom("trace_files").where("session_id", "=", sessionId));
  }

  clear(): void {
    this.#facts.transaction(() => {
      this.#facts.run(this.#facts.query.deleteFrom("trace_files"));
      this.#facts.run(this.#facts.query.deleteFrom("trace_sessions"));
    });
  }
}
