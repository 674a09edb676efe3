/**
 * The Environment: where a session's tool calls run (EnvironmentInterface).
 *
 * It is a thin shell over parts with one job each:
 *   - the builtin tools (`tools/*`), built once from the config and kept by name;
 *   - the catalog (`catalog.ts`): what `listTools` shows, overrides and `callDescription` applied;
 *     the builtins' JSON Schemas come from `tool-json-schemas.generated.ts` (made at build time);
 *   - argument validation (`arguments.ts`), before any tool code runs;
 *   - the close-out (`close-out.ts`): framing, timeouts, truncation, archive, verdict;
 *   - the process table (`commands/`), shared by the three command tools;
 *   - with a SubagentRunner configured, the Subagents service and call scopes
 *     (`../subagents/`), shared by the three subagent tools; the service's live children are
 *     resources in a Scope the Environment owns and closes on dispose; a call scope carries a
 *     call's `approve` and lets those tools put child messages on the call's stream;
 *   - an optional `ExtraToolProvider` (MCP), whose tools follow the builtins everywhere.
 *
 * `executeTool` never throws: unknown tools, bad arguments and a disposed environment all
 * end in a `failed` output. `dispose` interrupts running calls, stops every process group
 * and closes the provider; it is idempotent.
 */
import { setMaxListeners } from "node:events";
import { resolve } from "node:path";
import { isEvent, isModel, mcpConnectEnd, modelMessage, toolCallOutput, type OmniMessage, type ToolCallPayload, type ToolDefinition } from "@penguin/omnimessage";
import type { EnvironmentInterface, ExecuteToolInput, SubagentRunner, ToolPermission } from "../interfaces.js";
import { parseArgumentsObject, parseToolArguments } from "./arguments.js";
import { builtinDefinitions, primeJsonSchemas, type CatalogEntry } from "./catalog.js";
import { TOOL_JSON_SCHEMAS } from "./tool-json-schemas.generated.js";
import { closeOut, type CallPlan, type TimeoutScheduler } from "./close-out.js";
import { SecretRedactor } from "./redact.js";
import { SessionShell } from "./commands/shell-environment.js";
import { ProcessTable, type ProcessInfo } from "./commands/process-table.js";
import type { CommandSandbox } from "./commands/sandbox.js";
import { mountTable, unconfinedTable, withReadOnly, type SessionBoundary } from "./commands/mount-table.js";
import type { FileBoundary } from "./tools/file-target.js";
import { extraToolRun, type ExtraTool, type ExtraToolProvider } from "./extra-tools.js";
import type { FileOperations } from "./file-operations.js";
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  TOOL_OUTPUT_CHARS,
  TOOL_TIMEOUTS_MS,
  resolveLimits,
  type EnvironmentLimits,
} from "./limits.js";
import type { BuiltinTool } from "./tool.js";
import { createDescribeImageTool, type DescribeImageFn } from "./tools/describe-image.js";
import { createEditFileTool } from "./tools/edit-file.js";
import { createExecCommandTool } from "./tools/exec-command.js";
import { createInputCommandTool } from "./tools/input-command.js";
import { createKillCommandTool } from "./tools/kill-command.js";
import { createReadFileTool } from "./tools/read-file.js";
import { createReadImageTool } from "./tools/read-image.js";
import { createWriteFileTool } from "./tools/write-file.js";
import { createRunSubagentTool } from "./tools/run-subagent.js";
import { createInputSubagentTool } from "./tools/input-subagent.js";
import { createKillSubagentTool } from "./tools/kill-subagent.js";
import { CallScopes } from "../subagents/call-scope.js";
import { SUBAGENT_TOOL_TIMEOUTS_MS } from "../subagents/limits.js";
import { makeSubagents, type SubagentInfo, type SubagentsShape } from "../subagents/subagents.js";
import { Effect, ExecutionStrategy, Exit, Scope } from "effect";

export interface EnvironmentConfig {
  /** Absolute; relative tool paths resolve against it and commands start in it. */
  workspaceDir: string;
  /** `scratchpad/<sessionId>/`; truncated outputs are archived under `truncated-tool-output/`. */
  scratchpadDir: string;
  /** Layered onto the child process environment only. */
  vault?: Record<string, string>;
  /** true: read_image is offered; false (default): describe_image. */
  vision?: boolean;
  /** The vision service describe_image uses. */
  describeImage?: DescribeImageFn;
  /** Default true; false drops the `description` parameter from every tool. */
  callDescription?: boolean;
  /** system_config `tools.builtin`: replaces the default tool schemas wholesale. */
  builtinOverride?: ToolDefinition[];
  limits?: Partial<EnvironmentLimits>;
  /** Per-tool timeout overrides in ms, by tool name (MCP tools included). */
  timeouts?: Partial<Record<string, number>>;
  /** MCP (or any other) tools, listed after the builtins. */
  extraTools?: ExtraToolProvider;
  /** The environment commands inherit before scrubbing; default `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
  /** The file tools' filesystem; default the local disk. */
  fileOperations?: FileOperations;
  /** Arms per-tool timeouts; default `setTimeout` (tests fire timeouts at a chosen moment). */
  scheduleTimeout?: TimeoutScheduler;
  /** Spawns child sessions; when set, run_subagent / input_subagent / kill_subagent are offered. */
  subagents?: SubagentRunner;
  /** Run every command in this bubblewrap sandbox (commands/sandbox.ts); absent: unsandboxed. */
  sandbox?: CommandSandbox;
  /**
   * true: every command runs in a login shell (`bash -lc`, the profile sourced each time), as
   * before. Default false: the login shell's environment is captured once, at the first
   * command, and commands run `bash -c` in it (commands/shell-environment.ts).
   */
  loginShell?: boolean;
  /** How long that capture may take before commands go on without it; default 10 s. */
  shellCaptureTimeoutMs?: number;
  /** When a capture nobody waits for any more is stopped (it is never cut short before); default 120 s from its start. */
  shellCaptureLimitMs?: number;
  /**
   * What the file tools may touch (commands/mount-table.ts): the session's boundary, even when
   * its commands do not run in bwrap. Default the `sandbox`'s; neither: unconfined.
   */
  boundary?: SessionBoundary;
  /** Folders the file tools never write, whatever the boundary (agent_state: people change it). */
  readOnlyForTools?: readonly string[];
  /** Folders inside `readOnlyForTools` the tools still write where the boundary lets them (agent_state/memory). */
  writableForTools?: readonly string[];
}

/**
 * The file tools' view of the session's boundary: its mount table (for commands with this PATH,
 * so a tool folder a command sees is one the tools see), computed per call since the folders it
 * names may appear meanwhile; without a description, everything but the read-only folders.
 */
function fileBoundary(
  description: SessionBoundary | undefined,
  tools: { readOnly: readonly string[]; keepWritable: readonly string[] },
  searchPath: string | undefined,
): FileBoundary {
  if (description === undefined) return () => unconfinedTable(tools.readOnly, tools.keepWritable);
  return () => withReadOnly(mountTable(description, searchPath), tools.readOnly, tools.keepWritable);
}

/** A builtin with its generics erased behind a closure, as the registry keeps it. */
interface RegisteredTool {
  name: string;
  permission: ToolPermission;
  catalog: CatalogEntry;
  plan(argumentsJson: string): { plan: CallPlan; description?: string };
}

export class Environment implements EnvironmentInterface {
  readonly workspaceDir: string;
  readonly scratchpadDir: string;
  readonly limits: EnvironmentLimits;
  #config: EnvironmentConfig;
  #callDescription: boolean;
  #tools = new Map<string, RegisteredTool>();
  #processes: ProcessTable;
  /** Each command's environment: the login shell's, captured at the first command. */
  #shell: SessionShell;
  #subagents: { service: SubagentsShape; scope: Scope.CloseableScope; scopes: CallScopes } | undefined;
  /**
   * Aborted when the environment is disposed. Every tool call that is running listens to it
   * (once, removed when the call ends), and a model may ask for dozens of calls at once: no
   * listener limit, or Node warns of a leak on stderr past ten concurrent calls.
   */
  #disposeCtrl = unlimitedListeners(new AbortController());
  #disposing: Promise<void> | undefined;
  #builtinDefinitions: ToolDefinition[] | undefined;

  constructor(config: EnvironmentConfig) {
    this.#config = config;
    this.workspaceDir = resolve(config.workspaceDir);
    this.scratchpadDir = resolve(config.scratchpadDir);
    this.limits = resolveLimits(config.limits);
    this.#callDescription = config.callDescription ?? true;
    this.#processes = new ProcessTable({
      maxProcesses: this.limits.maxProcesses,
      unreadBufferBytes: this.limits.unreadBufferBytes,
      killGraceMs: this.limits.killGraceMs,
      ...(config.sandbox === undefined ? {} : { sandbox: config.sandbox }),
    });
    const shell = (this.#shell = new SessionShell({
      baseEnv: config.baseEnv ?? process.env,
      cwd: this.workspaceDir,
      ...(config.vault === undefined ? {} : { vault: config.vault }),
      ...(config.sandbox === undefined ? {} : { sandbox: config.sandbox }),
      ...(config.loginShell === undefined ? {} : { loginShell: config.loginShell }),
      ...(config.shellCaptureTimeoutMs === undefined ? {} : { captureTimeoutMs: config.shellCaptureTimeoutMs }),
      ...(config.shellCaptureLimitMs === undefined ? {} : { captureLimitMs: config.shellCaptureLimitMs }),
    }));
    const workspaceDir = this.workspaceDir;
    const operations = config.fileOperations;
    const boundary = fileBoundary(config.boundary ?? config.sandbox, { readOnly: config.readOnlyForTools ?? [], keepWritable: config.writableForTools ?? [] }, (config.baseEnv ?? process.env).PATH);
    const files = operations === undefined ? { workspaceDir, boundary } : { workspaceDir, operations, boundary };
    const processes = this.#processes;
    this.#add(createReadFileTool(files));
    this.#add(createEditFileTool(files));
    this.#add(createWriteFileTool(files));
    this.#add(createExecCommandTool({ workspaceDir, processes, shell, timeoutMs: this.timeoutFor("exec_command") }));
    this.#add(createInputCommandTool({ processes, timeoutMs: this.timeoutFor("input_command") }));
    this.#add(createKillCommandTool({ processes }));
    if (config.vision === true) this.#add(createReadImageTool(files));
    else {
      const describeImage = config.describeImage;
      this.#add(createDescribeImageTool(describeImage === undefined ? files : { ...files, describeImage }));
    }
    if (config.subagents !== undefined) {
      // The live children are resources in this Scope; dispose closes it, releasing them all.
      const scope = Effect.runSync(Scope.make(ExecutionStrategy.parallel));
      const subagents = Effect.runSync(Scope.extend(makeSubagents({ runner: config.subagents }), scope));
      const scopes = new CallScopes();
      this.#subagents = { service: subagents, scope, scopes };
      this.#add(createRunSubagentTool({ subagents, scopes, timeoutMs: this.timeoutFor("run_subagent") }));
      this.#add(createInputSubagentTool({ subagents, scopes, timeoutMs: this.timeoutFor("input_subagent") }));
      this.#add(createKillSubagentTool({ subagents, scopes }));
    }
  }

  /** The effective timeout of a tool: config override, else its SPEC value, else 120 s. */
  timeoutFor(name: string): number {
    return this.#config.timeouts?.[name] ?? TOOL_TIMEOUTS_MS[name] ?? SUBAGENT_TOOL_TIMEOUTS_MS[name] ?? DEFAULT_TOOL_TIMEOUT_MS;
  }

  /** Characters of a tool's output the model sees. */
  outputCharsFor(name: string): number {
    return TOOL_OUTPUT_CHARS[name] ?? this.limits.outputChars;
  }

  async *connect(signal?: AbortSignal): AsyncGenerator<OmniMessage, void> {
    const provider = this.#config.extraTools;
    if (provider === undefined) return;
    let open = false;
    try {
      for await (const m of provider.connect(signal ?? new AbortController().signal)) {
        if (isEvent(m, "mcp_connect_begin")) open = true;
        if (isEvent(m, "mcp_connect_end")) open = false;
        yield m;
      }
    } catch {
      if (open) yield mcpConnectEnd("failed", []);
    }
  }

  listTools(): ToolDefinition[] {
    this.#builtinDefinitions ??= this.#listBuiltins();
    const extra = this.#extraTools().map((t) => ({ ...t.definition }));
    return [...this.#builtinDefinitions.map((d) => ({ ...d })), ...extra];
  }

  toolPermission(name: string): ToolPermission {
    const builtin = this.#tools.get(name);
    if (builtin !== undefined) return builtin.permission;
    return this.#extraTools().find((t) => t.definition.name === name)?.permission ?? "rw";
  }

  /** A command about to run: its session's shell capture starts now, beside the call's checkpoint. */
  prepareTool(call: ToolCallPayload): void {
    if (call.name === "exec_command" && this.#disposing === undefined) this.#shell.warm();
  }

  async *executeTool(input: ExecuteToolInput): AsyncGenerator<OmniMessage, void> {
    const id = input.toolCall.tool_call_id;
    let completed = false;
    try {
      const { plan, description } = this.#plan(input.toolCall.name, input.toolCall.arguments);
      const options = {
        toolCallId: id,
        disposeSignal: this.#disposeCtrl.signal,
        scratchpadDir: this.scratchpadDir,
        archiveBytes: this.limits.archiveBytes,
        settleMs: 3 * this.limits.killGraceMs + 500,
        redactor: new SecretRedactor(this.#config.vault ?? {}),
        ...(this.#config.scheduleTimeout === undefined ? {} : { scheduleTimeout: this.#config.scheduleTimeout }),
      };
      const withSignal = input.signal === undefined ? options : { ...options, signal: input.signal };
      const stream = closeOut(plan, description === undefined ? withSignal : { ...withSignal, description });
      // Subagent tools put child messages and the `subagent` pointer on this call's stream.
      const scoped = this.#subagents === undefined ? stream : this.#subagents.scopes.during(id, input.approve, stream);
      for await (const m of scoped) {
        if (isModel(m, "tool_call_output")) completed = true;
        yield m;
      }
    } catch (err) {
      // Unreachable by design; kept so a bug can never throw into the engine.
      if (completed) return;
      const output = `[internal error while running the tool: ${err instanceof Error ? err.message : String(err)}]`;
      yield modelMessage({
        type: "partial_tool_call_output",
        role: "user",
        event_type: "stop",
        output: "",
        tool_call_id: id,
        stop_reason: "failed",
      });
      yield toolCallOutput({ tool_call_id: id, output, stop_reason: "failed" });
    }
  }

  /** True when commands run in a bubblewrap sandbox. */
  get sandboxed(): boolean {
    return this.#config.sandbox !== undefined;
  }

  /** Background commands, for the host (server process list). */
  listProcesses(): ProcessInfo[] {
    return this.#processes.list();
  }

  /**
   * Stops a background command for the host (the server's process panel), like kill_command:
   * process-group SIGTERM, SIGKILL after the grace, no notice. `missing` for an unknown id,
   * `exited` when it had already ended, `killed` once it has stopped.
   */
  async killProcess(id: string): Promise<"killed" | "exited" | "missing"> {
    const entry = this.#processes.get(id);
    if (entry === undefined || !entry.background) return "missing";
    if (!entry.process.running) return "exited";
    await this.#processes.kill(entry);
    return "killed";
  }

  /** Drops a finished background command from the list; `running` refuses (kill it first). */
  removeProcess(id: string): "removed" | "running" | "missing" {
    const entry = this.#processes.get(id);
    if (entry === undefined || !entry.background) return "missing";
    if (entry.process.running) return "running";
    entry.exitReported = true;
    this.#processes.forget(id);
    return "removed";
  }

  /** The last characters a background command wrote (for the host to spot a served URL). */
  processOutputTail(id: string): string | undefined {
    const entry = this.#processes.get(id);
    return entry === undefined || !entry.background ? undefined : entry.process.tail();
  }

  /** Live subagents (children of this session), for the host: status, model, usage. */
  listSubagents(): SubagentInfo[] {
    return this.#subagents === undefined ? [] : Effect.runSync(this.#subagents.service.list);
  }

  /** Texts of `[background_task_done]` notices not yet handed over; each is returned once. */
  drainNotices(): string[] {
    return [...this.#processes.drainNotices(), ...(this.#subagents === undefined ? [] : Effect.runSync(this.#subagents.service.drainNotices))];
  }

  dispose(): Promise<void> {
    if (this.#disposing !== undefined) return this.#disposing;
    this.#disposeCtrl.abort();
    this.#shell.dispose();
    this.#disposing = (async () => {
      const children = this.#subagents === undefined ? undefined : Effect.runPromise(Scope.close(this.#subagents.scope, Exit.void));
      await Promise.all([this.#processes.dispose(), children]);
      try {
        await this.#config.extraTools?.close();
      } catch {
        // closing is best effort; nothing is left to report to
      }
    })();
    return this.#disposing;
  }

  /** The builtin part of the list, once; each tool's JSON Schema from the generated file when it matches the tool's params. */
  #listBuiltins(): ToolDefinition[] {
    const catalog = [...this.#tools.values()].map((t) => t.catalog);
    primeJsonSchemas(catalog.map((entry) => [entry.params, TOOL_JSON_SCHEMAS[entry.name]] as const));
    return builtinDefinitions(
      catalog,
      this.#config.builtinOverride === undefined
        ? { callDescription: this.#callDescription }
        : { callDescription: this.#callDescription, override: this.#config.builtinOverride },
    );
  }

  #extraTools(): ExtraTool[] {
    const provider = this.#config.extraTools;
    if (provider === undefined) return [];
    try {
      return provider.tools();
    } catch {
      return [];
    }
  }

  #plan(name: string, argumentsJson: string): { plan: CallPlan; description?: string } {
    if (this.#disposeCtrl.signal.aborted) {
      return { plan: { kind: "reject", message: "The environment has been disposed; tools can no longer run." } };
    }
    const listed = new Set(this.listTools().map((t) => t.name));
    const builtin = this.#tools.get(name);
    if (builtin !== undefined && listed.has(name)) return builtin.plan(argumentsJson);
    const provider = this.#config.extraTools;
    if (provider !== undefined && builtin === undefined && listed.has(name)) {
      const args = parseArgumentsObject(name, argumentsJson);
      if (!args.ok) return { plan: { kind: "reject", message: args.error } };
      return {
        plan: {
          kind: "run",
          timeoutMs: this.timeoutFor(name),
          outputChars: this.outputCharsFor(name),
          run: extraToolRun(provider, name, argumentsJson),
        },
      };
    }
    return {
      plan: { kind: "reject", message: `Unknown tool: ${name}. Available tools: ${[...listed].join(", ")}.` },
    };
  }

  #add<P, D>(tool: BuiltinTool<P, D>): void {
    const requireDescription = tool.takesDescription && this.#callDescription;
    const timeoutMs = this.timeoutFor(tool.name);
    const outputChars = this.outputCharsFor(tool.name);
    this.#tools.set(tool.name, {
      name: tool.name,
      permission: tool.permission,
      catalog: { name: tool.name, description: tool.description, params: tool.params, takesDescription: tool.takesDescription },
      plan(argumentsJson) {
        const parsed = parseToolArguments(tool.name, argumentsJson, tool.params, { requireDescription });
        if (!parsed.ok) return { plan: { kind: "reject", message: parsed.error } };
        const params = parsed.value;
        const plan: CallPlan = { kind: "run", timeoutMs, outputChars, run: (ctx) => tool.execute(params, ctx) };
        return parsed.description === undefined ? { plan } : { plan, description: parsed.description };
      },
    });
  }
}

export function createEnvironment(config: EnvironmentConfig): Environment {
  return new Environment(config);
}

function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
