/**
 * Derived caches of the trace scan: which files a session has (with size and mtime, so an
 * unchanged file is not read again at the next start) and what the session's first meta
 * says about its source. Always safe to drop: `--reindex` does exactly that and rescans.
 */
import type { Database } from "better-sqlite3";

export interface TraceFileEntry {
  path: string;
  sessionId: string;
  fileIndex: number;
  size: number;
  mtimeMs: number;
}

export class TraceCacheStore {
  readonly #db: Database;
  readonly #file;
  readonly #upsertFile;
  readonly #upsertSession;
  readonly #deleteSession;
  readonly #deleteFiles;

  constructor(db: Database) {
    this.#db = db;
    this.#file = db.prepare<[string], { size: number; mtime_ms: number }>("SELECT size, mtime_ms FROM trace_files WHERE path = ?");
    this.#upsertFile = db.prepare<[string, string, number, number, number]>(
      `INSERT INTO trace_files (path, session_id, file_index, size, mtime_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms`,
    );
    this.#upsertSession = db.prepare<[string, string, string, string | null, number, number]>(
      `INSERT INTO trace_sessions (session_id, project_id, agent_id, source, file_count, mtime_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET source = excluded.source, file_count = excluded.file_count, mtime_ms = excluded.mtime_ms`,
    );
    this.#deleteSession = db.prepare<[string]>("DELETE FROM trace_sessions WHERE session_id = ?");
    this.#deleteFiles = db.prepare<[string]>("DELETE FROM trace_files WHERE session_id = ?");
  }

  /** True when the cache already knows this file at this size and mtime. */
  isCurrent(path: string, size: number, mtimeMs: number): boolean {
    const row = this.#file.get(path);
    return row !== undefined && row.size === size && row.mtime_ms === Math.floor(mtimeMs);
  }

  recordFile(f: TraceFileEntry): void {
    this.#upsertFile.run(f.path, f.sessionId, f.fileIndex, f.size, Math.floor(f.mtimeMs));
  }

  recordSession(s: { sessionId: string; projectId: string; agentId: string; source: string | null; fileCount: number; mtimeMs: number }): void {
    this.#upsertSession.run(s.sessionId, s.projectId, s.agentId, s.source, s.fileCount, Math.floor(s.mtimeMs));
  }

  forget(sessionId: string): void {
    this.#deleteSession.run(sessionId);
    this.#deleteFiles.run(sessionId);
  }

  clear(): void {
    this.#db.exec("DELETE FROM trace_files; DELETE FROM trace_sessions;");
  }
}
