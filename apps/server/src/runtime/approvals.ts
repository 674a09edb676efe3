/**
 * ApprovalRegistry: the tool calls of one session waiting for a human decision.
 *
 * `ask` is the host prompt that core's `approveForMode` calls when a mode wants a human:
 * it parks the call, announces it (`approval_request`), and resolves when
 * `POST /api/sessions/:id/approvals/:toolCallId` decides, or with `deny` when the run's
 * signal aborts (abort denies what is pending). Reconnecting clients get `pending()` again
 * after their replay, so a dialog survives a reload. A decision for an unknown call is
 * refused (false): it was never asked, was already decided, or its run was aborted.
 */
import type { ApprovalResult } from "@penguin/core";
import type { ToolCallPayload } from "@penguin/omnimessage";

export interface PendingApproval {
  toolCallId: string;
  toolCall: ToolCallPayload;
  requestedAt: number;
}

export type HumanDecision = "allow" | "deny";

export interface ApprovalEvents {
  requested(p: PendingApproval): void;
  resolved(toolCallId: string, decision: HumanDecision): void;
}

interface Parked extends PendingApproval {
  settle(decision: HumanDecision): void;
}

export class ApprovalRegistry {
  readonly #pending = new Map<string, Parked>();
  readonly #events: ApprovalEvents;
  readonly #now: () => number;

  constructor(events: ApprovalEvents, now: () => number) {
    this.#events = events;
    this.#now = now;
  }

  ask(toolCall: ToolCallPayload, signal: AbortSignal | undefined): Promise<ApprovalResult> {
    if (signal?.aborted) return Promise.resolve("deny");
    return new Promise<ApprovalResult>((resolve) => {
      const id = toolCall.tool_call_id;
      const onAbort = () => this.decide(id, "deny");
      const parked: Parked = {
        toolCallId: id,
        toolCall,
        requestedAt: this.#now(),
        settle: (decision) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(decision);
        },
      };
      this.#pending.set(id, parked);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#events.requested({ toolCallId: id, toolCall, requestedAt: parked.requestedAt });
    });
  }

  /** Settles a parked call; false when no such call is waiting. */
  decide(toolCallId: string, decision: HumanDecision): boolean {
    const parked = this.#pending.get(toolCallId);
    if (parked === undefined) return false;
    this.#pending.delete(toolCallId);
    parked.settle(decision);
    this.#events.resolved(toolCallId, decision);
    return true;
  }

  denyAll(): void {
    for (const id of [...this.#pending.keys()]) this.decide(id, "deny");
  }

  pending(): PendingApproval[] {
    return [...this.#pending.values()].map(({ toolCallId, toolCall, requestedAt }) => ({ toolCallId, toolCall, requestedAt }));
  }
}
