/**
 * TraceSink: where the engine records messages (the TraceWriter is the production sink).
 * A type module of its own because the engine, its live fold and its compaction all name it:
 * kept in context-engine.ts it tied those three into an import circle.
 */
import type { OmniMessage, ToolDefinition } from "@penguin/omnimessage";

/** Where the engine records messages. The trace writer is the production sink. */
export interface TraceSink {
  append(m: OmniMessage): void;
  setTools(tools: ToolDefinition[]): void;
  /** Continue in a new file (after a completed compaction). */
  rotate(): void;
  /**
   * Set by sinks that write records themselves, headers included (the TraceWriter): each
   * record once written. The session's live fold follows such a sink through it.
   */
  onAppend?(listener: (m: OmniMessage) => void): () => void;
  /**
   * Like `onAppend`, but each record the moment it is written, before it is durable (the
   * TraceWriter syncs commit points off the event loop and publishes them after). The live
   * fold prefers it: the engine reads what it just recorded.
   */
  onWrite?(listener: (m: OmniMessage) => void): () => void;
}
