/**
 * The agent's tools as the Agents page's Tools tab lists them, without starting a session:
 *
 * - builtin: core's own Environment is built (nothing runs: no process, no connection) and
 *   asked for its tool list, so names, descriptions, parameters, permissions and timeouts
 *   are exactly what a session offers, `tools.builtin` overrides included. `read_image` and
 *   `describe_image` are alternatives chosen by the model's vision flag; both are listed,
 *   each with that condition.
 * - mcp: the servers configured in `tools.mcpServers`, with their transport, permission
 *   setting and command or URL. Environment variables and headers are listed by name only
 *   (they often hold tokens). Their tools are known only after connecting: the tab runs
 *   `config/mcp-test` for that.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEnvironment, type AgentPaths, type SubagentRunner, type SystemConfig } from "@penguin/core";

export interface BuiltinToolView {
  name: string;
  description: string;
  permission: "r" | "rw";
  timeoutMs: number;
  parameters: unknown;
  /** When the tool is offered, if not always. */
  condition?: string;
}

export interface McpServerView {
  name: string;
  transport: string;
  permission: string;
  command?: string;
  args?: string[];
  url?: string;
  envKeys: string[];
  headerKeys: string[];
  connectTimeoutMs?: number;
}

export interface HookView {
  event: string;
  matcher?: string;
  command: string;
  timeoutSeconds?: number;
}

/** The agent's hooks (system_config.yaml `hooks:`), one row per command, in run order. */
export function configuredHooks(config: SystemConfig): HookView[] {
  return Object.entries(config.hooks ?? {}).flatMap(([event, groups]) =>
    (groups ?? []).flatMap((group) =>
      group.hooks.map((hook) => ({
        event,
        ...(group.matcher === undefined || group.matcher === "" ? {} : { matcher: group.matcher }),
        command: hook.command,
        ...(hook.timeout === undefined ? {} : { timeoutSeconds: hook.timeout }),
      })),
    ),
  );
}

const neverSpawns: SubagentRunner = {
  spawn() {
    return Promise.reject(new Error("the tool catalog never runs subagents"));
  },
};

export function builtinTools(agent: AgentPaths, config: SystemConfig): BuiltinToolView[] {
  const out: BuiltinToolView[] = [];
  const seen = new Set<string>();
  for (const vision of [false, true]) {
    const scratch = join(tmpdir(), "penguin-tool-catalog");
    const env = createEnvironment({ workspaceDir: agent.agentDir, scratchpadDir: scratch, vision, subagents: neverSpawns, ...(config.tools.builtin === undefined ? {} : { builtinOverride: config.tools.builtin }) });
    for (const tool of env.listTools()) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      const view: BuiltinToolView = { name: tool.name, description: tool.description, permission: env.toolPermission(tool.name), timeoutMs: env.timeoutFor(tool.name), parameters: tool.parameters ?? {} };
      if (tool.name === "read_image") view.condition = "models with vision";
      if (tool.name === "describe_image") view.condition = "models without vision (uses the vision model)";
      out.push(view);
    }
    void env.dispose();
  }
  return out;
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const keysOf = (v: unknown): string[] => (typeof v === "object" && v !== null && !Array.isArray(v) ? Object.keys(v) : []);

export function mcpServers(config: SystemConfig): McpServerView[] {
  return config.tools.mcpServers.map(({ name, config: c }) => {
    const url = text(c.url);
    const view: McpServerView = {
      name,
      transport: text(c.transport) ?? (url !== undefined ? "http" : "stdio"),
      permission: text(c.permission) ?? "auto",
      envKeys: keysOf(c.env),
      headerKeys: keysOf(c.headers),
    };
    const command = text(c.command);
    if (command !== undefined) view.command = command;
    if (Array.isArray(c.args)) view.args = c.args.filter((a): a is string => typeof a === "string");
    if (url !== undefined) view.url = url;
    if (typeof c.connectTimeoutMs === "number") view.connectTimeoutMs = c.connectTimeoutMs;
    return view;
  });
}
