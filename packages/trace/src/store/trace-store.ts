/**
 * TraceStore: the write model as an Effect service.
 *
 * It owns a traces directory (`<tracesDir>/<YYYY-MM-DD>/<session>_NNN.jsonl`) and offers:
 * - `open` / `append` / `rotate` / `close`: durable appends through the TraceWriter (one write
 *   per record, fdatasync after request_end, tool_call_output and compaction events, lazy
 *   headers, rotation to `_002`, `_003`…). `append` stamps each record with the Clock, never
 *   earlier than the previous record of the session, so a trace's timestamps do not go back
 *   even when the wall clock does (and tests run it on TestClock);
 * - `read`: the session's envelopes as a Stream, each with its position, lowest file first;
 *   torn, NUL-padded and malformed lines are skipped (counted by `scan`), never rewritten;
 * - `tail`: a Stream of what is appended from now on, published only once the record is
 *   durable (the writer calls back after its write and, for a commit point, once its
 *   background sync has completed; `append` answers only then too);
 * - `stateAt`: the fold of the session to an event count or a position, from snapshots.
 *
 * Domain errors are `Schema.TaggedError`s; file-system failures are mapped to them here, once.
 * This module is a separate entry (`@penguin/trace/store`) so that code using only the
 * reducer or the writer does not load Effect's runtime at start-up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Clock, Context, Effect, Layer, PubSub, Schema, Scope, Stream } from "effect";
import type { OmniMessage, SessionMetaPayload, ToolDefinition } from "@penguin/omnimessage";
import { parseAt, type StateAtTarget, type TracePosition } from "../position.js";
import { readTraceFile, traceFilesIn, type SkippedLine } from "../reader.js";
import { SessionFolds, type StateAtResult } from "../state-at.js";
import { TraceWriter } from "../writer.js";

export class TraceStoreConfig extends Context.Tag("penguin/TraceStoreConfig")<
  TraceStoreConfig,
  { readonly tracesDir: string; readonly fsync: boolean; readonly snapshotEvery?: number }
>() {}

export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  sessionId: Schema.String,
  message: Schema.String,
}) {}

export class SessionNotOpen extends Schema.TaggedError<SessionNotOpen>()("SessionNotOpen", {
  sessionId: Schema.String,
  message: Schema.String,
}) {}

export class TraceIoError extends Schema.TaggedError<TraceIoError>()("TraceIoError", {
  file: Schema.String,
  operation: Schema.Literal("append", "read", "rotate"),
  message: Schema.String,
}) {}

export class InvalidPosition extends Schema.TaggedError<InvalidPosition>()("InvalidPosition", {
  at: Schema.String,
  message: Schema.String,
}) {}

/** An envelope with its position in the session's trace. */
export interface PositionedEnvelope {
  readonly sessionId: string;
  readonly position: TracePosition;
  readonly envelope: OmniMessage;
}

export interface TraceScan {
  readonly events: number;
  readonly skipped: readonly (SkippedLine & { readonly file: number })[];
}

const SESSION_DATE = /^session-(\d{4}-\d{2}-\d{2})-\d{2}-\d{2}-\d{2}-[0-9a-f]{8}$/;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class TraceStore extends Effect.Service<TraceStore>()("penguin/TraceStore", {
  scoped: Effect.gen(function* () {
    const config = yield* TraceStoreConfig;
    const appended = yield* PubSub.unbounded<PositionedEnvelope>();
    const writers = new Map<string, { writer: TraceWriter; clock: { ms: number }; lastStampMs: number }>();
    const folds = new SessionFolds(config.snapshotEvery === undefined ? {} : { snapshotEvery: config.snapshotEvery });
    yield* Effect.addFinalizer(() => Effect.sync(() => {
      for (const { writer } of writers.values()) writer.close();
      writers.clear();
    }));

    const fileFor = (sessionId: string, date: string) => (index: number) => join(config.tracesDir, date, `${sessionId}_${String(index).padStart(3, "0")}.jsonl`);

    const writerOf = (sessionId: string) => {
      const entry = writers.get(sessionId);
      return entry === undefined ? Effect.fail(new SessionNotOpen({ sessionId, message: `session ${sessionId} is not open in this TraceStore: open it first` })) : Effect.succeed(entry);
    };

    /** Start writing a session: a new one (file 1), or continue an existing file (resume). */
    const open = Effect.fn("TraceStore.open")(function* (meta: SessionMetaPayload, options: { index?: number; existing?: boolean; tools?: ToolDefinition[] } = {}) {
      const sessionId = meta.session_id;
      const date = SESSION_DATE.exec(sessionId)?.[1];
      if (date === undefined) return yield* new SessionNotFound({ sessionId, message: `"${sessionId}" is not a session id (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)` });
      writers.get(sessionId)?.writer.close();
      const existing = options.existing ?? false;
      // The writer stamps every line it writes (headers included) with this clock reading,
      // set from the Clock just before each append, and holds it at its last stamp if it goes back.
      const clock = { ms: yield* Clock.currentTimeMillis };
      const writer = new TraceWriter({ fileFor: fileFor(sessionId, date), index: options.index ?? 1, meta, existing, toolsWritten: existing, fsync: config.fsync, now: () => clock.ms });
      if (options.tools !== undefined) writer.setTools(options.tools);
      const entry = { writer, clock, lastStampMs: Number.NEGATIVE_INFINITY };
      writer.onAppend((envelope, position) => {
        // Called by the writer after the write (and sync): an unbounded PubSub never suspends.
        Effect.runSync(PubSub.publish(appended, { sessionId, position, envelope }));
      });
      writers.set(sessionId, entry);
    });

    /**
     * Append one record (stamped now, never before the previous one). Answers its position
     * once it is durable; undefined for what a trace never holds (partials, child messages).
     */
    const append = Effect.fn("TraceStore.append")(function* (sessionId: string, envelope: OmniMessage) {
      const entry = yield* writerOf(sessionId);
      const now = yield* Clock.currentTimeMillis;
      const stampMs = Math.max(now, entry.lastStampMs);
      entry.lastStampMs = stampMs;
      entry.clock.ms = stampMs;
      const stamped = { ...envelope, timestamp: new Date(stampMs).toISOString() } as OmniMessage;
      const position = yield* Effect.try({
        try: () => entry.writer.append(stamped),
        catch: (error) => new TraceIoError({ file: entry.writer.file, operation: "append", message: messageOf(error) }),
      });
      // The writer syncs commit points in the background: answer once this record is published (so durable).
      if (position !== undefined) {
        yield* Effect.tryPromise({
          try: () => entry.writer.published(),
          catch: (error) => new TraceIoError({ file: entry.writer.file, operation: "append", message: messageOf(error) }),
        });
      }
      return { position, envelope: stamped };
    });

    /** Continue in the next file index (after a completed compaction). */
    const rotate = Effect.fn("TraceStore.rotate")(function* (sessionId: string) {
      const entry = yield* writerOf(sessionId);
      yield* Effect.try({
        try: () => entry.writer.rotate(),
        catch: (error) => new TraceIoError({ file: entry.writer.file, operation: "rotate", message: messageOf(error) }),
      });
    });

    const close = Effect.fn("TraceStore.close")(function* (sessionId: string) {
      const entry = writers.get(sessionId);
      writers.delete(sessionId);
      entry?.writer.close();
    });

    const filesOf = (sessionId: string) => {
      const files = traceFilesIn(config.tracesDir, sessionId);
      return files.length === 0 ? Effect.fail(new SessionNotFound({ sessionId, message: `no trace files for ${sessionId} under ${config.tracesDir}` })) : Effect.succeed(files);
    };

    /** The session's envelopes with their positions, file by file (each file read when reached). */
    const read = (sessionId: string): Stream.Stream<PositionedEnvelope, SessionNotFound | TraceIoError> =>
      Stream.fromIterableEffect(filesOf(sessionId)).pipe(
        Stream.mapConcatEffect((ref) =>
          Effect.try({
            try: () => {
              const content = readTraceFile(ref.file);
              return content.messages.map((envelope, i): PositionedEnvelope => ({ sessionId, position: { file: ref.index, line: content.lines[i]! }, envelope }));
            },
            catch: (error) => new TraceIoError({ file: ref.file, operation: "read", message: messageOf(error) }),
          }),
        ),
      );

    /** How many events the session has, and which lines were skipped (and why). */
    const scan = Effect.fn("TraceStore.scan")(function* (sessionId: string) {
      const files = yield* filesOf(sessionId);
      let events = 0;
      const skipped: (SkippedLine & { file: number })[] = [];
      for (const ref of files) {
        const content = yield* Effect.try({
          try: () => readTraceFile(ref.file),
          catch: (error) => new TraceIoError({ file: ref.file, operation: "read", message: messageOf(error) }),
        });
        events += content.messages.length;
        for (const s of content.skipped) skipped.push({ ...s, file: ref.index });
      }
      return { events, skipped } satisfies TraceScan;
    });

    /**
     * What this store appends from now on (to `sessionId`, or to any session), once durable.
     * The subscription is made when this effect runs (in the caller's Scope), so nothing
     * appended after it is missed, however late the stream is consumed.
     */
    const tail = (sessionId?: string): Effect.Effect<Stream.Stream<PositionedEnvelope>, never, Scope.Scope> =>
      Effect.map(Stream.fromPubSub(appended, { scoped: true }), (all) => (sessionId === undefined ? all : all.pipe(Stream.filter((e) => e.sessionId === sessionId))));

    /** The session's state at `at` (event count or `NNN:LLLLLL`), or at its end. */
    const stateAt = Effect.fn("TraceStore.stateAt")(function* (sessionId: string, at?: string | number) {
      const files = yield* filesOf(sessionId);
      let target: StateAtTarget | undefined;
      if (at !== undefined) {
        target = yield* Effect.try({ try: () => parseAt(at), catch: (error) => new InvalidPosition({ at: String(at), message: messageOf(error) }) });
      }
      return yield* Effect.try({
        try: (): StateAtResult => folds.stateAtFiles(sessionId, files, target),
        catch: (error) => new TraceIoError({ file: files[0]!.file, operation: "read", message: messageOf(error) }),
      });
    });

    return { open, append, rotate, close, read, scan, tail, stateAt } as const;
  }),
}) {
  /** The store over a traces directory. */
  static layer(config: { tracesDir: string; fsync?: boolean; snapshotEvery?: number }): Layer.Layer<TraceStore> {
    return TraceStore.Default.pipe(Layer.provide(Layer.succeed(TraceStoreConfig, { fsync: true, ...config })));
  }

  /** For tests: a store over a fresh temporary directory, removed when the layer is released. */
  static readonly Test: Layer.Layer<TraceStore | TraceStoreConfig> = Layer.unwrapScoped(
    Effect.gen(function* () {
      const tracesDir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "penguin-trace-store-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
      );
      const config = Layer.succeed(TraceStoreConfig, { tracesDir, fsync: false, snapshotEvery: 4 });
      return Layer.merge(TraceStore.Default.pipe(Layer.provide(config)), config);
    }),
  );
}
