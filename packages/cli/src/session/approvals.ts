/**
 * The `--approve` flag as an ApproveFn. The four modes are core's (`approveForMode`); the CLI
 * only supplies the question (`ask`) when there is a terminal to ask on. Without one,
 * `always-ask` denies and `read-only` denies what is not read-only, which is core's rule for
 * a missing `ask`.
 */
import type { ApprovalMode, ApproveFn, Session } from "@penguin/core";
import { APPROVAL_MODES, approveForMode } from "@penguin/core";
import { UsageError } from "../cli-error.js";

export type { ApprovalMode } from "@penguin/core";

export function parseApprovalMode(value: string): ApprovalMode {
  const mode = APPROVAL_MODES.find((m) => m === value);
  if (mode === undefined) throw new UsageError(`unknown approval mode "${value}": use one of ${APPROVAL_MODES.join(", ")}`);
  return mode;
}

export function approvalFor(mode: ApprovalMode, session: Session, ask: ApproveFn | undefined): ApproveFn {
  // The mode a task runs with is decided here: the session records it (a change only).
  session.setApprovalMode(mode);
  return approveForMode(mode, { permissionOf: (name) => session.toolPermission(name), ...(ask === undefined ? {} : { ask }) });
}
