/**
 * The session's server events applied to its view: a pure reducer over the Solid store,
 * apart from the transport (api/sse.ts) and from the controller that owns both. Each case
 * narrows on the ServerEvent union; approvals are spliced in and out with `produce`, the
 * goal is reconciled in place. What the view alone cannot do (close the stream reducer's
 * task, refetch the history, unlock the composer) comes back as an effect for the caller.
 *
 * `stale` marks an event older than the history the view was seeded from: it may still
 * carry the latest pending lists, but it must not move the task or the goal back.
 */
import { produce, reconcile, type SetStoreFunction } from "solid-js/store";
import type { ServerEvent } from "../../api/stream-events";
import { mergeGoal, type GoalUpdate } from "./goal";
import type { SessionViewState } from "./session-view";

export type SessionEffect = "end_task" | "resync" | "unlock_auth" | undefined;

export function dropApproval(setView: SetStoreFunction<SessionViewState>, toolCallId: string): void {
  setView(
    "approvals",
    produce((list) => {
      const at = list.findIndex((a) => a.toolCallId === toolCallId);
      if (at >= 0) list.splice(at, 1);
    }),
  );
}

export function applyGoal(view: SessionViewState, setView: SetStoreFunction<SessionViewState>, u: GoalUpdate): void {
  setView("goal", reconcile(mergeGoal(view.goal, u)));
}

export function applySessionEvent(e: ServerEvent, stale: boolean, view: SessionViewState, setView: SetStoreFunction<SessionViewState>): SessionEffect {
  switch (e.type) {
    case "task_state":
      if (stale) {
        setView({ followUps: e.pendingFollowUps, steering: e.pendingSteering });
        return undefined;
      }
      setView({
        taskState: e.state,
        followUps: e.pendingFollowUps,
        steering: e.pendingSteering,
        ...(e.state === "idle" ? { approvals: [] } : { taskError: undefined }),
      });
      return e.state === "idle" ? "end_task" : undefined;
    case "approval_request": {
      const toolCall = e.toolCall;
      if (toolCall === undefined || view.approvals.some((a) => a.toolCallId === e.toolCallId)) return undefined;
      setView(
        "approvals",
        produce((list) => {
          list.push({ toolCallId: e.toolCallId, toolCall });
        }),
      );
      return undefined;
    }
    case "approval_resolved":
      dropApproval(setView, e.toolCallId);
      return undefined;
    case "session_title":
      setView("title", e.title);
      return undefined;
    case "resync_required":
      return "resync";
    case "credentials_updated":
      return "unlock_auth";
    case "task_error":
      setView("taskError", e.message);
      return undefined;
    case "goal_started":
      if (!stale) applyGoal(view, setView, { type: "started", objective: e.objective, budget: e.budget });
      return undefined;
    case "goal_round":
      if (!stale) applyGoal(view, setView, { type: "round", round: e.round, used: e.used });
      return undefined;
    case "goal_finished":
      if (!stale) applyGoal(view, setView, { type: "finished", outcome: e.outcome, rounds: e.rounds, used: e.tokensUsed });
      return undefined;
    default:
      return undefined;
  }
}
