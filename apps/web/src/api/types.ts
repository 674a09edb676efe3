/**
 * The server's JSON shapes as the web app uses them (SPEC §9), derived from the HTTP
 * contract the server declares (`@penguin/server/contract`: an effect/Schema schema per
 * answer, in its route table and OpenAPI document, checked against real answers by the
 * server's http-contract test). Imported as types only: nothing of the contract, nor effect,
 * reaches the bundle.
 *
 * Most types here are the wire types themselves, or a Pick/Omit of them where a page needs
 * less. A few are the pages' own view models built from an answer (the header's
 * `SessionCommandsInfo`, the models editor's `ModelEntry`, a `SessionHistory` with its
 * position as text): each says which answer it comes from, and its fields are typed from
 * that answer, so a changed wire type breaks the typecheck here instead of drifting.
 * Protocol data inside them (history, fragments, tool calls) is `@penguin/omnimessage`'s.
 */
import type * as C from "@penguin/server/contract";
import type { OmniMessage } from "@penguin/omnimessage";

/** The contract's types are readonly; the pages' stores write into what they hold. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export type ApprovalMode = C.ApprovalMode;
export const APPROVAL_MODES: readonly ApprovalMode[] = ["allow-all", "always-ask", "read-only", "deny-all"];

export type ThinkingLevel = C.ThinkingLevel;
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["none", "low", "medium", "high", "xhigh", "max"];

export type ClientType = C.ClientType;
export const CLIENT_TYPES: readonly ClientType[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

/** `GET /api/me`'s user, with whether the server sandboxes commands (absent in a login answer). */
export type Me = Mutable<C.UserView> & { sandbox?: SandboxInfo };
export type SandboxInfo = C.SandboxAvailability;

export type Project = Mutable<Omit<C.ProjectView, "createdAt">>;
export type AgentInfo = Mutable<Omit<C.AgentView, "createdAt">>;
export type TaskState = C.TaskState;

/** A session as lists and the header show it: `SessionView` less its counters, with the one-session read's extras. */
export type SessionSummary = Mutable<Pick<
  C.SessionView,
  "id" | "projectId" | "agentId" | "title" | "provider" | "modelId" | "workspace" | "approvalMode" | "thinkingLevel" | "archived" | "source" | "forkedFrom" | "replayOf" | "state" | "lastActiveAt" | "createdAt"
>> & {
  /** The session's own network allowance (absent: the answer did not say). */
  sandboxNetwork?: C.SessionView["sandboxNetwork"];
  /** How its commands run and what the reader may change: only the one-session read carries it. */
  commands?: SessionCommandsInfo;
};

type DetailSandbox = C.SessionDetail["sandbox"];
type DetailPermissions = C.SessionDetail["permissions"];
/** `GET /api/sessions/:id`'s `sandbox` and `permissions`, named as the header uses them. */
export interface SessionCommandsInfo {
  /** bwrap can run on the server (`sandbox.available`). */
  sandboxAvailable: DetailSandbox["available"];
  /** The session's commands run in the sandbox (`sandbox.enabled`). */
  sandboxed: DetailSandbox["enabled"];
  /** The server allows every session's sandboxed commands the network (`sandbox.serverNetwork`). */
  serverNetwork: DetailSandbox["serverNetwork"];
  /** The reader may take the network back (`permissions.control`). */
  mayControl: DetailPermissions["control"];
  /** The reader may allow the network (`permissions.allowNetwork`). */
  mayAllowNetwork: DetailPermissions["allowNetwork"];
}

/** A goal's state: `active` while it runs, then how it ended (SPEC §3 goal mode). */
export type GoalStatus = C.GoalStatus;
export const GOAL_STATUSES: readonly GoalStatus[] = ["active", "complete", "blocked", "budget_limited", "aborted"];

/** `GET S/goal`'s goal, as the goal bar reads it (budget null = no limit). */
export type GoalState = Mutable<Pick<C.GoalAnswer["goal"], "objective" | "status" | "budget" | "used" | "rounds">>;

/** An approval waiting for an answer (`requestedAt` is absent when it came from a stream event). */
export type PendingApproval = Omit<C.PendingApproval, "requestedAt"> & { requestedAt?: C.PendingApproval["requestedAt"] };

/**
 * `GET S/messages` as the chat reads it: the envelopes that decode (mutable arrays the
 * stitching appends to), the position of the oldest as `<fileIndex>:<line>` text (pass it
 * as `before` for older pages), and `live` while a task runs.
 */
export interface SessionHistory {
  messages: OmniMessage[];
  live?: { cursor: string; fragments: OmniMessage[] } | null;
  cursor?: C.SessionHistory["cursor"];
  state?: C.SessionHistory["state"];
  pendingApprovals: PendingApproval[];
  tracePosition?: string | null;
  hasMore?: C.SessionHistory["hasMore"];
}

export type TaskInputItem = C.TaskInputItem;
export type PendingFollowUp = { id: string; input: TaskInputItem[] };
export type SteeringNote = Mutable<C.SteeringNote>;

type Present<T> = { [K in keyof T]?: Exclude<T[K], null> };
/** USD per million tokens, per bucket (SPEC §5): the model table's prices, absent where unset. */
export type Pricing = Mutable<Present<C.MaskedPricing>>;
/**
 * One model entry as the models editor holds it (`ModelTable.models[n]` with nulls as absent
 * fields and the masked key as `apiKeyMask`: sent back unchanged it keeps the stored key).
 */
export type ModelEntry = Mutable<Pick<C.MaskedModel, "provider" | "modelId" | "hasKey">> &
  Mutable<Present<Pick<C.MaskedModel, "clientType" | "baseUrl" | "contextWindow" | "maxTokens" | "displayName" | "vision" | "fastMode">>> & { apiKeyMask?: string; pricing?: Pricing };

/**
 * What the models editor sends back (a full-table replace keyed by the pair): `apiKey`
 * omitted keeps the stored key (when the base URL is unchanged), `null` removes it, a string
 * sets it.
 */
export type ModelEntryInput = Omit<ModelEntry, "hasKey" | "apiKeyMask"> & { apiKey?: string | null };

export type ModelRef = Mutable<C.ModelRef>;
export type ProviderPreset = Mutable<C.ProviderPreset>;
export type ModelPreset = Mutable<Pick<C.ModelPreset, "provider" | "modelId" | "displayName" | "baseUrl" | "clientType">> &
  Mutable<Partial<Pick<C.ModelPreset, "contextWindow" | "maxTokens" | "vision">>> & { pricing?: Pricing };
export interface PresetCatalog {
  providers: ProviderPreset[];
  models: ModelPreset[];
}
export interface ModelTable {
  models: ModelEntry[];
  defaultModel: C.ModelTable["defaultModel"];
  visionModel: C.ModelTable["visionModel"];
  updatedAt: C.ModelTable["updatedAt"];
}

export type ModelTestResult = Mutable<Partial<Pick<C.ModelTestResult, "status" | "ttftMs" | "tps" | "error">>> & Pick<C.ModelTestResult, "ok">;
export type DetectResult = Pick<NonNullable<C.DetectAnswer["detected"]>, "clientType" | "baseUrl">;
export type DirListing = Mutable<Pick<C.DirListing, "path" | "parent">> & { dirs: string[]; roots: string[] };
export type AgentConfig = Mutable<C.AgentConfigText>;
/** A vault entry; the value is masked (`••••abcd`) and, sent back unchanged, keeps the stored value. */
export type VaultEntry = { name: string; value: NonNullable<C.VaultView["entries"][number]["value"]> };
export type InstalledSkill = Mutable<Pick<C.SkillView, "name">> & { description?: C.SkillView["description"] };
export type LibrarySkill = InstalledSkill & Mutable<Pick<C.SkillView, "shortDescription">> & { group?: string };
export type VisionProbe = Mutable<C.VisionProbe>;
export type McpTestResult = Omit<Mutable<C.McpTestResult>, "tools"> & { tools: { name: string; description: string; permission: string }[] };
export type BuiltinTool = Omit<Mutable<C.BuiltinTool>, "parameters" | "permission"> & { permission: string };
export type McpServerInfo = Omit<Mutable<C.McpServerInfo>, "args" | "envKeys" | "headerKeys" | "connectTimeoutMs"> & { args: string[]; envKeys: string[]; headerKeys: string[] };
export type HookInfo = Mutable<C.HookInfo>;
export interface AgentTools {
  builtin: BuiltinTool[];
  mcp: McpServerInfo[];
  hooks: HookInfo[];
}
export type MemoryScope = Mutable<C.MemoryScopes["scopes"][number]>;
export type MemoryFile = Mutable<C.FileContent>;
export type MemoryImportMode = "skip" | "overwrite" | "replace";
export type SnapshotInfo = Mutable<C.SnapshotInfo>;
export type ProcessInfo = Mutable<Omit<C.ProcessView, "started">> & { started: number };

/** One model request of a session, as the server's trace analysis reports it. */
export type RequestAnalysis = Mutable<Omit<C.RequestAnalysis, "total" | "startedAt">>;
export interface TraceAnalysis {
  status: C.TraceAnalysis["status"];
  requests: RequestAnalysis[];
  tasks: Omit<C.TraceAnalysis["tasks"][number], "output" | "total">[];
  compactions: Omit<C.TraceAnalysis["compactions"][number], "error">[];
  totals: Omit<C.TraceAnalysis["totals"], "cacheRead" | "cacheWrite">;
}

export type UsageGroupBy = C.UsageReport["groupBy"];
export type Granularity = C.UsageReport["granularity"];
export type UsageRow = Mutable<Omit<C.UsageRow, "costText">>;
export interface UsageReport {
  rows: UsageRow[];
  totals: Omit<UsageRow, "key">;
}
export type UsageErrorItem = Mutable<Omit<C.UsageErrorItem, "date" | "projectId" | "kind">> & { kind: string };

/** A traced session of the agent; `date` (`YYYY-MM-DD`) is read from its id. */
export type TraceSessionEntry = Mutable<Omit<C.AgentTraceSession, "files">> & { date: string; files: { index: number; size: number }[] };

type TraceLine = C.TraceFilePage["lines"][number];
export interface TraceFilePage {
  /** `cut`: what the server cut of the record (a text over 4 MiB keeps its head) and where it is whole. */
  lines: { line: TraceLine["line"]; message: OmniMessage; cut?: NonNullable<TraceLine["cut"]> }[];
  total: C.TraceFilePage["total"];
  nextOffset: C.TraceFilePage["nextOffset"];
}

/** What the outline view (`view=outline`) keeps of an envelope: what time travel names an event by. */
export type EventOutline = { type: C.EventOutline["type"]; payload: Mutable<C.EventOutline["payload"]> };
export interface TraceOutlinePage {
  lines: { line: TraceLine["line"]; message: EventOutline }[];
  total: C.TraceFilePage["total"];
  nextOffset: C.TraceFilePage["nextOffset"];
}

export type AdminUser = Mutable<C.AdminUserView>;
