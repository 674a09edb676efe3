/**
 * Zod pieces shared by several resources: ids with the patterns core enforces, and the
 * common response shapes. Resource-specific schemas live in their route files.
 */
import { APPROVAL_MODES, PROJECT_OR_AGENT_ID, USER_ID } from "@penguin/core";
import { THINKING_LEVELS } from "@penguin/models";
import { z } from "zod";

export const ProjectId = z.string().regex(PROJECT_OR_AGENT_ID, "must be 2–64 lowercase letters, digits or _, starting with a letter");
export const AgentId = ProjectId;
export const UserId = z.string().regex(USER_ID, "must be 2–32 lowercase letters, digits or _, starting with a letter");
export const Password = z.string().min(8, "must be at least 8 characters").max(1024);
export const ApprovalModeSchema = z.enum(APPROVAL_MODES);
export const ThinkingLevelSchema = z.enum(THINKING_LEVELS);

export const Ok = z.object({ ok: z.literal(true) });
