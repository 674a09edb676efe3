// Approvals: the four approval modes as ApproveFns, and the command policy (a veto on
// catastrophic shell commands that the engine applies before asking the host).
export { APPROVAL_MODES, approveForMode, isApprovalMode, type ApprovalMode, type ApproveForModeOptions } from "./modes.js";
export { commandPrefixOf, ruleAllows, SHELL_TOOL } from "./session-rules.js";
export {
  FACTORY_RULES,
  analyzeCommand,
  checkCommandPolicy,
  createCommandPolicy,
  normalizeCommand,
  type CommandPolicyConfig,
  type CommandPolicyRule,
  type NormalizedCommand,
  type PolicyHit,
} from "./command-policy.js";
