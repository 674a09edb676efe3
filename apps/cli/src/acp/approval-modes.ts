/**
 * Our approval modes as ACP session modes, so the editor's mode picker shows and switches
 * them: `session/set_mode` records the change in the trace (`settings_changed`, as the chat and
 * the web do) and applies from the next tool call on. Which mode a session opens with: the
 * `--approve` flag when given; else, for a loaded or resumed session, the mode its trace last
 * recorded; else read-only.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalMode } from "@penguin/core";

const DESCRIPTIONS: Record<ApprovalMode, { name: string; description: string }> = {
  "read-only": { name: "Ask before changes", description: "Reads run; every write and command is asked first" },
  "always-ask": { name: "Ask always", description: "Every tool call is asked first, reads too" },
  "allow-all": { name: "Allow all", description: "Writes and commands run unasked (commands stay in the sandbox)" },
  "deny-all": { name: "Deny all", description: "No tool call runs" },
};

export function modeState(current: ApprovalMode, modes: readonly ApprovalMode[]): acp.SessionModeState {
  return { currentModeId: current, availableModes: modes.map((id) => ({ id, ...DESCRIPTIONS[id] })) };
}
