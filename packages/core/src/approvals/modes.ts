/**
 * Approval modes: the four ways a host can answer "may this tool call run?", turned into an
 * `ApproveFn` the engine calls once per complete tool call.
 *
 *   allow-all   every call runs (the default of the reference product);
 *   deny-all    no call runs;
 *   read-only   tools with permission `r` run; anything else goes to `ask` (denied without one);
 *   always-ask  every call goes to `ask` (denied without one).
 *
 * `ask` is the host's interactive prompt (a CLI question, a web dialog). A throwing or
 * rejecting `ask` counts as `deny`, as the ApproveFn contract says. The command policy is
 * not applied here: the engine runs it before any ApproveFn, under every mode. Which mode says
 * what is `modeVerdict` (deciders/approvals.ts); this file only adds the prompt.
 */
import type { ApprovalAnswer, ApproveFn, ToolPermission } from "../interfaces.js";
import { modeVerdict } from "../deciders/approvals.js";

export type ApprovalMode = "allow-all" | "deny-all" | "read-only" | "always-ask";

export const APPROVAL_MODES: readonly ApprovalMode[] = ["allow-all", "deny-all", "read-only", "always-ask"];

export function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && APPROVAL_MODES.some((m) => m === value);
}

export interface ApproveForModeOptions {
  /** The permission of a tool by name (the Environment's `toolPermission`). */
  permissionOf: (toolName: string) => ToolPermission;
  /** The host's prompt; without one, calls that would be asked are denied. */
  ask?: ApproveFn;
}

/** The mode as an ApproveFn: the mode's verdict (`modeVerdict`, the approvals decider's rule), `ask` when it says ask. */
export function approveForMode(mode: ApprovalMode, options: ApproveForModeOptions): ApproveFn {
  return async function approveByMode(toolCall, ctx): Promise<ApprovalAnswer> {
    const verdict = modeVerdict(mode, () => options.permissionOf(toolCall.name));
    if (verdict !== "ask") return verdict;
    if (options.ask === undefined) return "deny";
    try {
      return await options.ask(toolCall, ctx);
    } catch {
      return "deny";
    }
  };
}
