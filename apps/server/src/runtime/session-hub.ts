/**
 * SessionHub: the server-side life of one session, whether or not its core Session is
 * loaded: its event channel (with replay ring), its pending approvals, its task state, the
 * follow-up queue and the steering not yet delivered. The core Session (`core`) is loaded
 * on demand and may be disposed while the hub lives on for its subscribers (idle eviction).
 *
 * Server events (`server_event`, data `{type, …}`) are published through `serverEvent` so
 * every one is in the ring; `taskState()` is also sent, without an id, to each new
 * subscriber after its replay.
 */
import type { Session } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import type { ThinkingLevel } from "@penguin/models";
import { ApprovalRegistry } from "./approvals.js";
import type { LiveLog } from "./live-log.js";
import { SESSION_RING, SseChannel, type EventIds } from "./sse-channel.js";
import type { TaskInputItem } from "./task-input.js";

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
  readonly channel: SseChannel;
  readonly approvals: ApprovalRegistry;
  core: Session | undefined;
  loading: Promise<Session> | undefined;
  state: TaskState = "idle";
  run: ActiveRun | undefined;
  readonly followUps: FollowUp[] = [];
  readonly steering = new Map<string, SteeringNote>();
  lastActiveAt: number;
  /** The project's models changed: reload the core Session once the current run ends. */
  stale = false;
  titling = false;

  constructor(ids: { sessionId: string; projectId: string; agentId: string }, eventIds: EventIds, now: () => number) {
    this.sessionId = ids.sessionId;
    this.projectId = ids.projectId;
    this.agentId = ids.agentId;
    this.channel = new SseChannel(eventIds, SESSION_RING);
    this.lastActiveAt = now();
    this.approvals = new ApprovalRegistry(
      {
        requested: (p) => this.serverEvent({ type: "approval_request", toolCallId: p.toolCallId, toolCall: p.toolCall, requestedAt: p.requestedAt }),
        resolved: (toolCallId, decision) => this.serverEvent({ type: "approval_resolved", toolCallId, decision }),
      },
      now,
    );
  }

  serverEvent(event: { type: string } & Record<string, unknown>): string {
    return this.channel.publish(JSON.stringify(event), "server_event");
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
