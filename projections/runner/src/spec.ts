/**
 * Given/when/then for a projection on a `:memory:` database, the shape every projection's
 * tests share: given some trace events (already applied), when more arrive, then query the
 * tables. `given` and `when` are separate batches, as checkpoints would cut them, so a test
 * also shows that a fold carries across batch boundaries.
 */
import type { Kysely } from "kysely";
import type { OmniMessage } from "@penguin/omnimessage";
import { eventKind, type Projection, type TraceEvent } from "./contract.js";
import { immediateTransaction, openProjectionDatabase } from "./database.js";
import { rowWriter } from "./row-writer.js";
import { parseEventTime } from "./event-time.js";

export interface EventSource {
  sessionId: string;
  projectId?: string;
  agentId?: string;
  fileIndex?: number;
  /** Line number of the first message (default 1). */
  firstLine?: number;
  /** Byte offset where the first message's line starts (default 0). */
  firstByte?: number;
}

/** Positions a list of messages as consecutive lines of one trace file (each line its JSON and a newline). */
export function traceEvents(source: EventSource, messages: readonly OmniMessage[]): TraceEvent[] {
  const first = source.firstLine ?? 1;
  let endByte = source.firstByte ?? 0;
  return messages.map((message, i) => {
    const ts = parseEventTime(message.timestamp);
    endByte += Buffer.byteLength(JSON.stringify(message)) + 1;
    return {
      projectId: source.projectId ?? "default_project",
      agentId: source.agentId ?? "default_agent",
      sessionId: source.sessionId,
      fileIndex: source.fileIndex ?? 1,
      line: first + i,
      endByte,
      ts: Number.isFinite(ts) ? ts : 0,
      kind: eventKind(message),
      message,
    };
  });
}

export interface ProjectionSpec {
  given(events: readonly TraceEvent[]): ProjectionSpec;
  when(events: readonly TraceEvent[]): ProjectionSpec;
  then<T>(query: (db: Kysely<any>) => Promise<T>): Promise<T>;
}

export function projectionSpec(projection: Projection): ProjectionSpec {
  const batches: TraceEvent[][] = [];
  const spec: ProjectionSpec = {
    given(events) {
      batches.push([...events]);
      return spec;
    },
    when(events) {
      batches.push([...events]);
      return spec;
    },
    async then(query) {
      const { db, sqlite } = await openProjectionDatabase(":memory:");
      const rows = rowWriter(sqlite);
      try {
        await projection.migrate(db);
        for (const batch of batches) {
          const handled = projection.handles.length === 0 ? batch : batch.filter((e) => projection.handles.includes(e.kind));
          await immediateTransaction(db, (conn) => projection.apply(handled, conn, rows));
        }
        return await query(db);
      } finally {
        await db.destroy();
      }
    },
  };
  return spec;
}
