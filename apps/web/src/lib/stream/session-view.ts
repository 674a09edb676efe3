/**
 * The state of one open chat as the page draws it (a Solid store owned by its
 * SessionController): the rows, the connection, the task and what waits on the person.
 */
import type { SseStatus } from "../../api/sse";
import type { PendingApproval, PendingFollowUp, SteeringNote, TaskState } from "../../api/types";
import type { GoalView } from "./goal";
import type { ViewItem } from "./view-model";

export interface SessionViewState {
  items: readonly ViewItem[];
  loading: boolean;
  /** The history could not be loaded, or the stream was refused (404: no such session). */
  error: string | undefined;
  connection: SseStatus;
  taskState: TaskState;
  followUps: PendingFollowUp[];
  steering: SteeringNote[];
  approvals: PendingApproval[];
  title: string | undefined;
  authLocked: boolean;
  authMessage: string;
  taskError: string | undefined;
  /** Older history exists on the server. */
  hasOlder: boolean;
  loadingOlder: boolean;
  /** The session's latest goal (running or finished), if it ran one. */
  goal: GoalView | undefined;
  /** A goal round is open in the current task (its `[goal]` block seen, no goal_finished yet). */
  goalRunning: boolean;
}

/** The view before anything is known: loading, connecting, nothing to show. */
export function initialSessionViewState(): SessionViewState {
  return {
    items: [],
    loading: true,
    error: undefined,
    connection: "connecting",
    taskState: "idle",
    followUps: [],
    steering: [],
    approvals: [],
    title: undefined,
    authLocked: false,
    authMessage: "",
    taskError: undefined,
    hasOlder: false,
    loadingOlder: false,
    goal: undefined,
    goalRunning: false,
  };
}

