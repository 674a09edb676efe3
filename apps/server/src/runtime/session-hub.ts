/**
 * SessionHub: the server-side life of one session, whether or not its core Session is
 * loaded: its event channel (with replay ring), its pending approvals, its task state, the
 * follow-up queue and the steering not yet delivered. The core Session (`core`) is loaded
 * on demand and may be disposed while the hub lives on for its subscribers (idle eviction).
 *
 * What the stream carries, in the order a reader of the trace would see it (session-channel.ts):
 * - every trace record, with its position as id, taken from the core Session's writer the
 *   moment it is durable (`onTraceAppend`), including records the run never yields (the
 *   Human's input, settings, titles, the header of a rotated file);
 * - what the run yields that is not in the trace (partials, subagent messages), as volatile
 *   events. The engine appends a record before it queues it for the host, so a record can be
 *   written while partials emitted before it still wait in that queue: records are therefore
 *   held back until the run yields them (`publishYielded` sends every held record up to and
 *   including the yielded one), and the records the run never yields go out as soon as the
 *   host has drained what was queued before them (the next turn of the event loop). A
 *   reader never sees a partial after the record that completes it;
 * - server events (`server_event`, data `{type, …}`) through `serverEvent`, also volatile;
 *   the partials of a run leave the replay ring when it ends (SessionChannel.runEnded), the
 *   server events and subagent messages stay;
 *   `taskState()` is also sent, without an id, to each new subscriber after its replay.
 */
import type { Session } from "@penguin/core";
import { isPartial, isTraceable, type OmniMessage } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import { ApprovalRegistry } from "./approvals.js";
import type { LiveLog } from "./live-log.js";
import type { EventIds } from "./sse-channel.js";
import { SessionChannel, VOLATILE_TAIL, type TraceFileRef } from "./session-channel.js";
import type { TracePosition } from "@penguin/core";
import type { TaskInputItem } from "./task-input.js";
import type { GoalView } from "../services/session-trace-info.js";

export type TaskState = "idle" | "running" | "compacting";

export interface FollowUp {
  id: string;
  /** What the client sent, returned as-is on recall. */
  input: TaskInputItem[];
  /** The same input as envelopes, built (files stored) when it was queued. */
  messages: OmniMessage[];
  prompt: string;
  thinkingLevel: ThinkingLevel | undefined;
  /** A queued goal keeps its budget. */
  goal?: { budget: number } | undefined;
  /** The request's W3C traceparent: the task's trace_context, recorded when it starts. */
  traceparent?: string | undefined;
  queuedAt: number;
}

/**
 * Steering sent while a task runs. `id` is the server's (stable across reloads of the core
 * Session, whose own ids restart), `coreId` the engine's. `pending` until the engine hands it
 * to the model (`delivered`), or until the run ends without it (`dropped`: core discards
 * undelivered steering, the server keeps the text so it can still be recalled).
 */
export interface SteeringNote {
  id: string;
  coreId: string;
  text: string;
  status: "pending" | "delivered" | "dropped";
}

export interface ActiveRun {
  controller: AbortController;
  log: LiveLog;
  /** Settles when the run has ended and the hub is idle again. */
  done: Promise<void>;
}

export class SessionHub {
  readonly sessionId: string;
  readonly projectId: string;
  readonly agentId: string;
  readonly channel: SessionChannel;
  readonly approvals: ApprovalRegistry;
  #core: Session | undefined;
  #stopListening: (() => void) | undefined;
  /** Records written and not sent yet (waiting for the run to yield them), in trace order. */
  #held: { message: OmniMessage; position: TracePosition }[] = [];
  #positions = new WeakMap<OmniMessage, TracePosition>();
  #flushScheduled = false;
  /**
   * In a cluster: announces the durable position of this node's writer to the other nodes,
   * after each sync (runtime/followed-streams.ts `announceFrom`), so a follower never reads a
   * line a crash could still take back. The records it sends are then not announced by the channel.
   */
  announceDurable: ((through: TracePosition) => void) | undefined;
  loading: Promise<Session> | undefined;
  state: TaskState = "idle";
  run: ActiveRun | undefined;
  readonly followUps: FollowUp[] = [];
  readonly steering = new Map<string, SteeringNote>();
  lastActiveAt: number;
  /** The project's models changed: reload the core Session once the current run ends. */
  stale = false;
  titling = false;
  /**
   * The progress of the goal this hub ran last, as the run counts it (tokens and rounds so far):
   * the trace records a goal's start and end (`goal_started`, `goal_finished`), the rounds in
   * between are live only. Read by the goal route before the trace's record.
   */
  goalProgress: GoalView | undefined;

  constructor(ids: { sessionId: string; projectId: string; agentId: string }, eventIds: EventIds, now: () => number, traceFiles: () => TraceFileRef[]) {
    this.sessionId = ids.sessionId;
    this.projectId = ids.projectId;
    this.agentId = ids.agentId;
    this.channel = new SessionChannel(traceFiles, eventIds.epoch, VOLATILE_TAIL, now);
    this.lastActiveAt = now();
    this.approvals = new ApprovalRegistry(
      {
        requested: (p) => this.serverEvent({ type: "approval_request", toolCallId: p.toolCallId, toolCall: p.toolCall, requestedAt: p.requestedAt }),
        resolved: (toolCallId, decision) => this.serverEvent({ type: "approval_resolved", toolCallId, decision }),
      },
      now,
    );
  }

  /** The loaded core Session. Setting it starts following its trace (and sends what loading it wrote). */
  get core(): Session | undefined {
    return this.#core;
  }

  set core(core: Session | undefined) {
    if (core === this.#core) return;
    this.#flushHeld();
    this.#stopListening?.();
    this.#stopListening = undefined;
    this.#core = core;
    if (core === undefined) return;
    const stopAppends = core.onTraceAppend((message, position) => this.#onAppend(message, position));
    const announce = this.announceDurable;
    const stopDurable = announce === undefined ? undefined : core.onTraceDurable(announce);
    this.#stopListening = () => {
      stopAppends();
      stopDurable?.();
    };
    // Resuming may have written records (a dangling compaction closed) before we listened.
    this.channel.catchUp();
  }

  serverEvent(event: { type: string } & Record<string, unknown>): string {
    return this.channel.volatile(JSON.stringify(event), "server_event");
  }

  /** A message the run yielded: a record goes out with every record held before it; the rest is volatile. */
  publishYielded(m: OmniMessage): void {
    const position = this.#positions.get(m);
    if (position !== undefined) {
      this.#flushHeld(position);
      return;
    }
    // Traceable but never written (a duplicate tool list, a session_meta the writer skips): not part of the stream.
    if (isTraceable(m)) return;
    this.channel.volatile(JSON.stringify(m), undefined, { streaming: isPartial(m) });
  }

  /** Sends every held record (the run has ended, or the host has drained its queue). */
  flushHeld(): void {
    this.#flushHeld();
  }

  #onAppend(message: OmniMessage, position: TracePosition): void {
    this.#positions.set(message, position);
    this.#held.push({ message, position });
    if (this.run === undefined) {
      this.#flushHeld();
      return;
    }
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      this.#flushHeld();
    });
  }

  #flushHeld(upTo?: TracePosition): void {
    while (this.#held.length > 0) {
      const next = this.#held[0]!;
      if (upTo !== undefined && (next.position.file > upTo.file || (next.position.file === upTo.file && next.position.line > upTo.line))) break;
      this.#held.shift();
      this.channel.durable(next.message, next.position, this.announceDurable === undefined);
    }
  }

  taskState(): { type: "task_state"; state: TaskState; queued: number; pendingFollowUps: { id: string; input: TaskInputItem[] }[]; pendingSteering: { id: string; text: string }[] } {
    return {
      type: "task_state",
      state: this.state,
      queued: this.followUps.length,
      pendingFollowUps: this.followUps.map((f) => ({ id: f.id, input: f.input })),
      pendingSteering: [...this.steering.values()].filter((n) => n.status === "pending").map(({ id, text }) => ({ id, text })),
    };
  }

  /** Pending notes the engine no longer holds were handed to the model. True when any changed. */
  markDeliveredSteering(enginePending: readonly { id: string }[]): boolean {
    const still = new Set(enginePending.map((p) => p.id));
    let changed = false;
    for (const note of this.steering.values()) {
      if (note.status !== "pending" || still.has(note.coreId)) continue;
      note.status = "delivered";
      changed = true;
    }
    return changed;
  }

  /** The run ended: what was never delivered is dropped by the engine (its text stays recallable). */
  dropPendingSteering(): void {
    for (const note of this.steering.values()) if (note.status === "pending") note.status = "dropped";
  }

  publishTaskState(): void {
    this.serverEvent(this.taskState());
  }

  get busy(): boolean {
    return this.state !== "idle" || this.run !== undefined;
  }
}
