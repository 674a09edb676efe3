/**
 * Test helpers for the runner: a temporary data root with trace files in the real layout, and
 * a small projection (events per session, last line seen) to watch the runner with.
 */
import { appendFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { threadId } from "node:worker_threads";
import { requestBegin, requestEnd, sessionMeta, userText, type OmniMessage } from "@penguin/omnimessage";
import type { Projection } from "../src/index.js";

export function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), "penguin-projections-"));
}

export function tracePath(root: string, sessionId: string, index = 1, project = "default_project", agent = "default_agent"): string {
  const date = sessionId.slice("session-".length, "session-".length + 10);
  return join(root, project, "agents", agent, "traces", date, `${sessionId}_${String(index).padStart(3, "0")}.jsonl`);
}

export function appendRaw(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, text);
}

export function appendMessages(file: string, messages: readonly OmniMessage[]): void {
  appendRaw(file, messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
}

export const at = (second: number): string => new Date(Date.UTC(2026, 0, 2, 10, 0, second)).toISOString();

export function aTurn(sessionId: string, start: number): OmniMessage[] {
  return [
    sessionMeta({ session_id: sessionId, provider: "fake", model_id: "m1", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" }, { at: at(start) }),
    userText("hello", { at: at(start + 1) }),
    requestBegin({ at: at(start + 2) }),
    requestEnd("completed", undefined, { at: at(start + 3) }),
  ];
}

export interface CounterRow {
  session_id: string;
  events: number;
  last_line: number;
}

export function counterProjection(version = 1, name = "counter"): Projection<Record<string, CounterRow>> {
  return {
    name,
    version,
    handles: [],
    async migrate(db) {
      await db.schema
        .createTable(name)
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("events", "integer", (c) => c.notNull())
        .addColumn("last_line", "integer", (c) => c.notNull())
        .execute();
    },
    async apply(batch, db) {
      for (const e of batch) {
        await db
          .insertInto(name)
          .values({ session_id: e.sessionId, events: 1, last_line: e.line })
          .onConflict((oc) => oc.column("session_id").doUpdateSet((eb) => ({ events: eb(`${name}.events`, "+", 1), last_line: e.line })))
          .execute();
      }
    },
  };
}

/** The counter, importable by a parallel rebuild's worker thread (it has a `source`). */
export const sourcedCounter: Projection<Record<string, CounterRow>> = { ...counterProjection(), source: { module: import.meta.url, exportName: "sourcedCounter" } };

/**
 * Which thread applied each session's events (0: the calling thread), to see that a parallel
 * rebuild really shared the work. Its rows differ between rebuilds on purpose: compare the
 * other tables.
 */
export const threadProjection: Projection<Record<string, { session_id: string; thread: number }>> = {
  name: "thread",
  version: 1,
  handles: [],
  source: { module: import.meta.url, exportName: "threadProjection" },
  async migrate(db) {
    await db.schema.createTable("thread").addColumn("session_id", "text", (c) => c.primaryKey()).addColumn("thread", "integer", (c) => c.notNull()).execute();
  },
  async apply(batch, db) {
    for (const e of batch) await db.insertInto("thread").values({ session_id: e.sessionId, thread: threadId }).onConflict((oc) => oc.column("session_id").doNothing()).execute();
  },
};

/** A projection whose `source` names nothing: a worker thread cannot load it. */
export const unloadableCounter: Projection<Record<string, CounterRow>> = { ...counterProjection(1, "unloadable"), source: { module: import.meta.url, exportName: "noSuchExport" } };

/** A counter that fails in any thread but the calling one: a worker's failure mid-rebuild. */
export const failsInWorker: Projection<Record<string, CounterRow>> = {
  ...counterProjection(1, "failing"),
  source: { module: import.meta.url, exportName: "failsInWorker" },
  async apply(batch, db, rows) {
    if (threadId !== 0) throw new Error("this projection fails in a worker thread");
    await counterProjection(1, "failing").apply(batch, db, rows);
  },
};
