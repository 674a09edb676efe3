/**
 * The server's JSON shapes as the web app uses them (SPEC §9). Protocol data inside them
 * (history, fragments, tool calls) is typed with `@penguin/omnimessage` and imported as
 * types only: the API layer carries it, the stream code checks it with the guards.
 *
 * Where the server's answer may name a field two ways while its routes settle (`id` vs
 * `sessionId`), the normalizers in the resource modules accept both, so the pages only ever
 * see the shapes below.
 */
import type { GoalOutcome, OmniMessage, ToolCallPayload } from "@penguin/omnimessage";

export type ApprovalMode = "allow-all" | "deny-all" | "read-only" | "always-ask";
export const APPROVAL_MODES: readonly ApprovalMode[] = ["allow-all", "always-ask", "read-only", "deny-all"];

export type ThinkingLevel = "none" | "low" | "medium" | "high" | "xhigh" | "max";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["none", "low", "medium", "high", "xhigh", "max"];

export type ClientType = "openai-chat" | "openai-responses" | "anthropic-messages" | "gemini";
export const CLIENT_TYPES: readonly ClientType[] = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"];

export interface Me {
  userId: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  /** Whether the server runs session commands in its bwrap sandbox (absent in a login answer). */
  sandbox?: SandboxInfo;
}

export interface SandboxInfo {
  /** bwrap can run on the server. */
  available: boolean;
  /** Session commands run in it. */
  enabled: boolean;
}

export interface Project {
  projectId: string;
  name: string | null;
  ownerUserId: string;
  role: "owner" | "member" | "admin";
}

export interface AgentInfo {
  agentId: string;
  name: string | null;
  description: string | null;
}

export type TaskState = "idle" | "running" | "compacting";

export interface SessionSummary {
  id: string;
  projectId: string;
  agentId: string;
  title: string | null;
  provider: string | null;
  modelId: string | null;
  workspace: string | null;
  approvalMode: ApprovalMode;
  thinkingLevel: ThinkingLevel | null;
  archived: boolean;
  /** Who started it, from its trace: a subagent's child session, a schedule, or a person (null). */
  source: "subagent" | "schedule" | null;
  /** The session and event (`NNN:LLLLLL`) this one was forked from; null when it was not. */
  forkedFrom: { sessionId: string; at: string } | null;
  /** The recorded session this one re-executes (a replay); null when it is not one. */
  replayOf: string | null;
  state: TaskState;
  lastActiveAt: number;
  createdAt: number;
  /** The session's own network allowance for its sandboxed commands (absent: the answer did not say). */
  sandboxNetwork?: boolean;
  /** How its commands run and what the reader may change: only the one-session read carries it. */
  commands?: SessionCommandsInfo;
}

/** `GET /api/sessions/:id`'s `sandbox` and `permissions`, as the header uses them. */
export interface SessionCommandsInfo {
  /** bwrap can run on the server. */
  sandboxAvailable: boolean;
  /** The session's commands run in the sandbox. */
  sandboxed: boolean;
  /** The server allows every session's sandboxed commands the network (no session can take it back). */
  serverNetwork: boolean;
  /** The reader may take the network back: the session's creator, a project owner or the admin. */
  mayControl: boolean;
  /** The reader may allow the network: a project owner or the admin. */
  mayAllowNetwork: boolean;
}

/** A goal's state: `active` while it runs, then how it ended (SPEC §3 goal mode). */
export type GoalStatus = "active" | GoalOutcome;
export const GOAL_STATUSES: readonly GoalStatus[] = ["active", "complete", "blocked", "budget_limited", "aborted"];

/** `GET S/goal`: the session's latest goal as the server indexed it. */
export interface GoalState {
  objective: string;
  status: GoalStatus;
  /** Token budget; null = no limit. */
  budget: number | null;
  used: number;
  rounds: number;
}

/** `live` is present while a task runs: the newest event id reflected and the open fragments. */
export interface SessionHistory {
  messages: OmniMessage[];
  live?: { cursor: string; fragments: OmniMessage[] } | null;
  /** The id of the newest stream event this answer reflects (null: nothing published yet). */
  cursor?: string | null;
  state?: TaskState;
  /** Approvals waiting at the moment of the answer. */
  pendingApprovals: PendingApproval[];
  /** Where the oldest returned message sits (`<fileIndex>:<line>`): pass it as `before` for older pages. */
  tracePosition?: string | null;
  /** Older messages exist before `tracePosition`. */
  hasMore?: boolean;
}

export interface PendingFollowUp {
  id: string;
  input: TaskInputItem[];
}

export interface SteeringNote {
  id: string;
  text: string;
}

export type TaskInputItem =
  | { type: "text"; text: string }
  | { type: "image_url"; imageUrl: string }
  | { type: "file"; fileName: string; dataUrl: string };

export interface PendingApproval {
  toolCallId: string;
  toolCall: ToolCallPayload;
  requestedAt?: number;
}

/** USD per million tokens, per bucket (SPEC §5). */
export interface Pricing {
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
}

/** One model entry as the server shows it: the key itself is never sent back. */
export interface ModelEntry {
  provider: string;
  modelId: string;
  clientType?: ClientType;
  baseUrl?: string;
  /** True when a key is stored. */
  hasKey: boolean;
  /** The masked key (`••••abcd`); sent back unchanged it keeps the stored key. */
  apiKeyMask?: string;
  contextWindow?: number;
  maxTokens?: number;
  displayName?: string;
  vision?: boolean;
  fastMode?: boolean;
  pricing?: Pricing;
}

/**
 * What the models editor sends back (a full-table replace keyed by the pair): `apiKey`
 * omitted keeps the stored key (when the base URL is unchanged), `null` removes it, a string
 * sets it.
 */
export interface ModelEntryInput {
  provider: string;
  modelId: string;
  clientType?: ClientType;
  baseUrl?: string;
  apiKey?: string | null;
  contextWindow?: number;
  maxTokens?: number;
  displayName?: string;
  vision?: boolean;
  fastMode?: boolean;
  pricing?: Pricing;
}

export interface ModelRef {
  provider: string;
  modelId: string;
}

/** A provider the "add from preset" form offers: where it lives and which protocol it speaks. */
export interface ProviderPreset {
  provider: string;
  displayName: string;
  baseUrl: string;
  clientType: ClientType;
}

export interface ModelTable {
  models: ModelEntry[];
  defaultModel: ModelRef | null;
  visionModel: ModelRef | null;
  updatedAt: number | null;
}

export interface ModelTestResult {
  ok: boolean;
  status?: string;
  ttftMs?: number;
  tps?: number;
  error?: string;
}

export interface DetectResult {
  clientType: ClientType;
  baseUrl: string;
}

export interface DirListing {
  path: string;
  parent: string | null;
  dirs: string[];
}

export interface AgentConfig {
  /** `system_config.yaml` as text (comments kept). */
  systemConfig: string;
  /** `AGENTS.md` as text. */
  agentsMd: string;
}

export interface VaultEntry {
  name: string;
  /** Masked value (`••••abcd`); sent back unchanged it keeps the stored value. */
  value: string;
}

export interface InstalledSkill {
  name: string;
  description?: string;
}

export interface LibrarySkill {
  name: string;
  description?: string;
  shortDescription?: string;
  group?: string;
}

/** A model from the preset catalog (`GET P/models/presets`): where it lives, its limits and prices. */
export interface ModelPreset {
  provider: string;
  modelId: string;
  displayName: string;
  baseUrl: string;
  clientType: ClientType;
  contextWindow?: number;
  maxTokens?: number;
  vision?: boolean;
  pricing?: Pricing;
}

export interface PresetCatalog {
  providers: ProviderPreset[];
  models: ModelPreset[];
}

export interface VisionProbe {
  /** true: it saw the image; false: it did not, or refused it; null: could not tell. */
  vision: boolean | null;
  answer?: string;
  status: string;
  error?: string;
}

export interface McpTestResult {
  ok: boolean;
  transport: string;
  durationMs: number;
  tools: { name: string; description: string; permission: string }[];
  error?: string;
}

export interface BuiltinTool {
  name: string;
  description: string;
  permission: string;
  timeoutMs: number;
  condition?: string;
}

export interface McpServerInfo {
  name: string;
  transport: string;
  permission: string;
  command?: string;
  args: string[];
  url?: string;
  envKeys: string[];
  headerKeys: string[];
}

export interface AgentTools {
  builtin: BuiltinTool[];
  mcp: McpServerInfo[];
}

export interface MemoryScope {
  key: string;
  workspace: string | null;
  files: number;
}

export interface MemoryFile {
  path: string;
  size: number;
  encoding: "utf8" | "base64";
  content: string;
  truncated: boolean;
}

export type MemoryImportMode = "skip" | "overwrite" | "replace";

export interface SnapshotInfo {
  name: string;
  version: number;
  size: number;
  mtimeMs: number;
}

export interface ProcessInfo {
  id: string;
  command: string;
  label: string;
  status: "running" | "exited" | "killed";
  started: number;
  exitCode?: number | null;
  serviceUrl?: string;
}

/** One model request of a session, as the server's trace analysis reports it. */
export interface RequestAnalysis {
  n: number;
  task: number;
  fileIndex: number;
  status: string;
  attempt?: number;
  retryInMs?: number;
  error?: string;
  context: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  cacheHitRate?: number;
  durationMs?: number;
  toolCalls: number;
}

export interface TraceAnalysis {
  status: string;
  requests: RequestAnalysis[];
  tasks: { n: number; prompt: string | null; status: string; requests: number; steering: number; compactions: number }[];
  compactions: { task: number; reason: string; mode: string; contextTokens: number; status: string }[];
  totals: { requests: number; retries: number; toolCalls: number; compactions: number; output: number; total: number; durationMs: number };
}

export type UsageGroupBy = "date" | "agent" | "model" | "session";
export type Granularity = "minute" | "hour" | "day" | "week" | "month";

export interface UsageRow {
  /** The time bucket (local `YYYY-MM-DD[THH:MM]` or `YYYY-MM`) or the group key. */
  key: string;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  total: number;
  requests: number;
  failures: number;
  cost: number;
  /** Some tokens had no price: `cost` leaves them out. */
  hasUncosted: boolean;
}

export interface UsageReport {
  rows: UsageRow[];
  totals: Omit<UsageRow, "key">;
}

export interface UsageErrorItem {
  id: number;
  ts: number;
  agentId: string;
  sessionId: string;
  source: string;
  kind: string;
  code: string | null;
  status: string;
  message: string;
}

export interface TraceSessionEntry {
  sessionId: string;
  /** `YYYY-MM-DD`, from the session id. */
  date: string;
  mtimeMs: number;
  files: { index: number; size: number }[];
}

export interface TraceFilePage {
  /** `cut`: what the server cut of the record (a text over 4 MiB keeps its head) and where it is whole. */
  lines: { line: number; message: OmniMessage; cut?: { bytes: number; at: string } }[];
  total: number;
  nextOffset: number | null;
}

/** What the outline view (`view=outline`) keeps of an envelope: what time travel names an event by. */
export interface EventOutline {
  type: OmniMessage["type"];
  payload: { type?: string; role?: string; name?: string };
}

export interface TraceOutlinePage {
  lines: { line: number; message: EventOutline }[];
  total: number;
  nextOffset: number | null;
}

export interface AdminUser {
  userId: string;
  isAdmin: boolean;
  passwordIsInitial: boolean;
  createdAt: number;
}
