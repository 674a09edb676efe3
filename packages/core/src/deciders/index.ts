// The engine's deciders: `decide(state, command) → events`, pure, beside `evolve` (see decider.ts).
export type { Decider } from "./decider.js";
export { decideApproval, modeVerdict, answerOf, type ApprovalCommand, type ApprovalFacts, type ModeVerdict } from "./approvals.js";
export {
  decideCompaction,
  compactionThreshold,
  compactionTrigger,
  DEFAULT_COMPACTION,
  MAX_CONTENT_ATTEMPTS,
  startedReason,
  type CompactionCommand,
  type CompactionFacts,
  type CompactionSettings,
  type TriggerFacts,
} from "./compaction.js";
export { decideSteering, steeringText, type SteeringCommand, type SteeringFacts } from "./steering.js";
export { decideGoal, wrapUpDue, MAX_GOAL_ROUNDS, type GoalCommand, type GoalFacts } from "./goals.js";
export { decideResume, CRASHED_DURING_COMPACTION, type ResumeCommand } from "./resume.js";
