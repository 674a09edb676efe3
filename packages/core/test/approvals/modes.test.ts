// The approval modes matrix: every mode × tool permission × host prompt behaviour.
import { describe, expect, it } from "vitest";
import type { ToolCallPayload } from "@penguin/omnimessage";
import type { ApprovalResult, ApproveFn, ToolPermission } from "../../src/interfaces.js";
import { APPROVAL_MODES, approveForMode, isApprovalMode, type ApprovalMode } from "../../src/approvals/index.js";

const PERMISSIONS: Record<string, ToolPermission> = { read_file: "r", exec_command: "rw" };
const permissionOf = (name: string): ToolPermission => PERMISSIONS[name] ?? "rw";

function callOf(name: string): ToolCallPayload {
  return { type: "tool_call", role: "assistant", name, arguments: "{}", tool_call_id: `id-${name}` };
}

type Asker = "none" | "allow" | "deny" | "throws";

function askerOf(kind: Asker, asked: string[]): ApproveFn | undefined {
  switch (kind) {
    case "none":
      return undefined;
    case "allow":
      return async (c) => {
        asked.push(c.name);
        return "allow";
      };
    case "deny":
      return async (c) => {
        asked.push(c.name);
        return "deny";
      };
    case "throws":
      return async (c) => {
        asked.push(c.name);
        throw new Error("prompt closed");
      };
  }
}

/** [mode, tool, asker, expected decision, whether the host was asked]. */
const MATRIX: [ApprovalMode, string, Asker, ApprovalResult, boolean][] = [];
for (const tool of ["read_file", "exec_command"]) {
  for (const asker of ["none", "allow", "deny", "throws"] as const) {
    const askedResult: ApprovalResult = asker === "allow" ? "allow" : "deny";
    const asks = asker !== "none";
    MATRIX.push(["allow-all", tool, asker, "allow", false]);
    MATRIX.push(["deny-all", tool, asker, "deny", false]);
    MATRIX.push(["always-ask", tool, asker, askedResult, asks]);
    MATRIX.push(
      tool === "read_file" ? ["read-only", tool, asker, "allow", false] : ["read-only", tool, asker, askedResult, asks],
    );
  }
}

describe("approveForMode", () => {
  it("lists the four modes and recognises them", () => {
    expect(APPROVAL_MODES).toEqual(["allow-all", "deny-all", "read-only", "always-ask"]);
    expect(APPROVAL_MODES.every(isApprovalMode)).toBe(true);
    expect(isApprovalMode("yolo")).toBe(false);
    expect(isApprovalMode(undefined)).toBe(false);
  });

  it.each(MATRIX)("%s, %s, ask=%s → %s (asked: %s)", async (mode, tool, asker, expected, asked) => {
    const seen: string[] = [];
    const ask = askerOf(asker, seen);
    const approve = approveForMode(mode, ask === undefined ? { permissionOf } : { permissionOf, ask });
    await expect(approve(callOf(tool), {})).resolves.toBe(expected);
    expect(seen).toEqual(asked ? [tool] : []);
  });

  it("passes the abort signal through to the host's prompt", async () => {
    const ctrl = new AbortController();
    let received: AbortSignal | undefined;
    const approve = approveForMode("always-ask", {
      permissionOf,
      ask: async (_c, ctx) => {
        received = ctx.signal;
        return "allow";
      },
    });
    await approve(callOf("exec_command"), { signal: ctrl.signal });
    expect(received).toBe(ctrl.signal);
  });
});
