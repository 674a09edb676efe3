/**
 * An agent's own resources as the API answers them: its config files, vault, memory,
 * schedules, skills, tools, benchmarks and snapshots.
 */
import { Schema } from "effect";
import { FileList } from "./common.js";

export const AgentConfigText = Schema.Struct({ systemConfig: Schema.String, agentsMd: Schema.String });
export const KernelUpdate = Schema.Struct({ added: Schema.Array(Schema.String), kernelVersion: Schema.Struct({ from: Schema.Number, to: Schema.Number }), systemConfig: Schema.String });
export const AgentThinkingLevel = Schema.Struct({ thinkingLevel: Schema.optional(Schema.NullOr(Schema.String)) });
export const AgentThinkingLevelSaved = Schema.Struct({ thinkingLevel: Schema.NullOr(Schema.String), systemConfig: Schema.String });
export const McpTestResult = Schema.Struct({
  ok: Schema.Boolean,
  transport: Schema.String,
  durationMs: Schema.Number,
  tools: Schema.Array(Schema.Struct({ name: Schema.String, description: Schema.String, permission: Schema.Literal("r", "rw") })),
  error: Schema.optional(Schema.String),
});

/** Vault entries, values masked (`••••abcd`). */
export const VaultView = Schema.Struct({ entries: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.NullOr(Schema.String) })) });

export const MemoryScopes = Schema.Struct({ scopes: Schema.Array(Schema.Struct({ key: Schema.String, workspace: Schema.NullOr(Schema.String), files: Schema.Number })) });
export const MemoryExport = Schema.Struct({
  format: Schema.Literal("penguin-memory"),
  version: Schema.Literal(1),
  files: Schema.Array(Schema.Struct({ path: Schema.String, encoding: Schema.Literal("utf8", "base64"), content: Schema.String })),
});
export const MemoryImportResult = Schema.Struct({ written: Schema.Array(Schema.String), skipped: Schema.Array(Schema.String), removed: Schema.Number });

export const ScheduleStatus = Schema.Struct({
  name: Schema.String,
  enabled: Schema.Boolean,
  period: Schema.NullOr(Schema.String),
  valid: Schema.Boolean,
  invalidReason: Schema.NullOr(Schema.String),
  lastFiredAt: Schema.NullOr(Schema.Number),
  lastSlotMs: Schema.NullOr(Schema.Number),
  nextAt: Schema.NullOr(Schema.Number),
  missed: Schema.Number,
  lastError: Schema.NullOr(Schema.String),
});
export const ScheduleList = Schema.Struct({ schedules: Schema.Array(ScheduleStatus), running: Schema.Boolean });
export const ScheduleFile = Schema.Struct({ name: Schema.String, text: Schema.String });

export const SkillView = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  shortDescription: Schema.optional(Schema.String),
  shortDescriptionZh: Schema.optional(Schema.String),
  preinstall: Schema.Boolean,
  version: Schema.Number,
  updated: Schema.optional(Schema.String),
});
export const SkillLibrary = Schema.Struct({ groups: Schema.Array(Schema.Struct({ name: Schema.String, skills: Schema.Array(SkillView) })) });
export const InstalledSkills = Schema.Struct({ skills: Schema.Array(SkillView) });
export const SkillsInstalled = Schema.Struct({ installed: Schema.Array(SkillView) });
export const SkillArchiveInstalled = Schema.Struct({ installed: SkillView });

export const BuiltinTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  permission: Schema.Literal("r", "rw"),
  timeoutMs: Schema.Number,
  parameters: Schema.Unknown,
  condition: Schema.optional(Schema.String),
});
export const McpServerInfo = Schema.Struct({
  name: Schema.String,
  transport: Schema.String,
  permission: Schema.String,
  command: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Array(Schema.String)),
  url: Schema.optional(Schema.String),
  envKeys: Schema.Array(Schema.String),
  headerKeys: Schema.Array(Schema.String),
  connectTimeoutMs: Schema.optional(Schema.Number),
});
/** One configured hook command (system_config.yaml `hooks:`), for reading; the owner edits them in the config. */
export const HookInfo = Schema.Struct({ event: Schema.String, matcher: Schema.optional(Schema.String), command: Schema.String, timeoutSeconds: Schema.optional(Schema.Number) });
export const AgentTools = Schema.Struct({ builtin: Schema.Array(BuiltinTool), mcp: Schema.Array(McpServerInfo), hooks: Schema.Array(HookInfo) });

export const BenchmarkList = Schema.Struct({ benchmarks: Schema.Array(Schema.String) });
export const BenchmarkCases = Schema.Struct({ cases: Schema.Array(Schema.String) });
export { FileList };

export const SnapshotInfo = Schema.Struct({ name: Schema.String, version: Schema.Number, size: Schema.Number, mtimeMs: Schema.Number });
export const SnapshotList = Schema.Struct({ version: Schema.NullOr(Schema.Number), snapshots: Schema.Array(SnapshotInfo) });
export const SnapshotImported = Schema.Struct({ version: Schema.Number, previousVersion: Schema.NullOr(Schema.Number), snapshot: Schema.NullOr(Schema.String) });

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type AgentConfigText = typeof AgentConfigText.Type;
export type KernelUpdate = typeof KernelUpdate.Type;
export type AgentThinkingLevel = typeof AgentThinkingLevel.Type;
export type AgentThinkingLevelSaved = typeof AgentThinkingLevelSaved.Type;
export type McpTestResult = typeof McpTestResult.Type;
export type VaultView = typeof VaultView.Type;
export type MemoryScopes = typeof MemoryScopes.Type;
export type MemoryExport = typeof MemoryExport.Type;
export type MemoryImportResult = typeof MemoryImportResult.Type;
export type ScheduleStatus = typeof ScheduleStatus.Type;
export type ScheduleList = typeof ScheduleList.Type;
export type ScheduleFile = typeof ScheduleFile.Type;
export type SkillView = typeof SkillView.Type;
export type SkillLibrary = typeof SkillLibrary.Type;
export type InstalledSkills = typeof InstalledSkills.Type;
export type SkillsInstalled = typeof SkillsInstalled.Type;
export type SkillArchiveInstalled = typeof SkillArchiveInstalled.Type;
export type BuiltinTool = typeof BuiltinTool.Type;
export type McpServerInfo = typeof McpServerInfo.Type;
export type HookInfo = typeof HookInfo.Type;
export type AgentTools = typeof AgentTools.Type;
export type BenchmarkList = typeof BenchmarkList.Type;
export type BenchmarkCases = typeof BenchmarkCases.Type;
export type SnapshotInfo = typeof SnapshotInfo.Type;
export type SnapshotList = typeof SnapshotList.Type;
export type SnapshotImported = typeof SnapshotImported.Type;
