// Lifecycle hooks through a real session: the testkit plays the model, the hooks are real bash
// scripts in the workspace run in the session's bwrap sandbox (where bwrap runs), and every
// check reads what the model was sent (the testkit's recorded requests), what happened on disk,
// and the `hook_run` records of the trace. The timeout case waits for the timeout record itself.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { HookRunPayload, OmniMessage } from "@penguin/omnimessage";
import type { ScriptStep } from "@penguin/testkit";
import { allow, collect, resultText, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { sandboxAvailability } from "../helpers/sandbox-mode.js";
import { trustWorkspaceHooks, WORKSPACE_HOOKS_FILE } from "../../src/hooks/workspace-hooks.js";
import { parseSystemConfig } from "../../src/state/system-config.js";

const sandboxed = sandboxAvailability().available;

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** system_config.yaml's hooks section for one event (a YAML flow mapping is JSON). */
const hooksYaml = (hooks: unknown): ((yaml: string) => string) => (yaml) => `${yaml}\nhooks: ${JSON.stringify(hooks)}\n`;

function script(workspace: string, name: string, body: string): string {
  const dir = join(workspace, ".hooks");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return file;
}

const hookRuns = (messages: OmniMessage[]): HookRunPayload[] =>
  messages.flatMap((m) => (m.type === "event_msg" && m.payload.type === "hook_run" ? [m.payload] : []));

/** The tool result texts of the model's last request. */
function lastToolResults(harness: Harness): string[] {
  const last = harness.kit.requests.at(-1)!;
  return last.messages.filter((m) => m.kind === "tool_result").map((m) => resultText(m.text) ?? "");
}

async function runWithHooks(steps: ScriptStep[], hooks: (workspace: string) => unknown, prepare?: (workspace: string) => void) {
  // The workspace must exist before the config names its scripts: start, then write the config.
  h = await startHarness({ script: steps, agentOptions: sandboxed ? { sandbox: { enabled: true } } : {} });
  prepare?.(h.workspace);
  writeFileSync(h.agent.paths.systemConfig, hooksYaml(hooks(h.workspace))(readFileSync(h.agent.paths.systemConfig, "utf8")));
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  const streamed = await collect(session.run("go", { approve: allow }));
  const tracePath = session.tracePath;
  await session.dispose();
  expect(h.kit.violations).toEqual([]);
  return { streamed, trace: traceOf(tracePath), session };
}

describe(`hooks (${sandboxed ? "in the bwrap sandbox" : "bwrap unavailable: unsandboxed"})`, () => {
  it("a PreToolUse hook written for Claude Code (matcher Bash, jq on tool_input.command, exit 2) denies rm -rf", async () => {
    const { trace } = await runWithHooks(
      [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "rm -rf precious", description: "test" } }] }, { text: "ok" }],
      (ws) => ({
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: script(ws, "block-rm.sh", `cmd=$(jq -r '.tool_input.command')\nif [[ "$cmd" == *"rm -rf"* ]]; then echo "Blocked: rm -rf is not allowed here" >&2; exit 2; fi\nexit 0`) }],
          },
        ],
      }),
      (ws) => mkdirSync(join(ws, "precious")),
    );
    expect(existsSync(join(h!.workspace, "precious"))).toBe(true);
    expect(lastToolResults(h!).join("\n")).toContain("Blocked: rm -rf is not allowed here");
    const runs = hookRuns(trace);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ hook_event: "PreToolUse", outcome: "blocked", exit_code: 2, decision: "block", tool_name: "exec_command", reason: "Blocked: rm -rf is not allowed here" });
  });

  it("a PreToolUse hook's updatedInput is the command that runs, and the trace records it", async () => {
    const { trace } = await runWithHooks(
      [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo original > out.txt", description: "test" } }] }, { text: "ok" }],
      (ws) => ({
        PreToolUse: [
          {
            matcher: "exec_command",
            hooks: [
              {
                type: "command",
                command: script(
                  ws,
                  "rewrite.sh",
                  `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"rewritten","updatedInput":{"command":"echo rewritten > out.txt"}}}'`,
                ),
              },
            ],
          },
        ],
      }),
    );
    expect(readFileSync(join(h!.workspace, "out.txt"), "utf8")).toBe("rewritten\n");
    const run = hookRuns(trace)[0]!;
    expect(run).toMatchObject({ hook_event: "PreToolUse", outcome: "ok", decision: "allow" });
    expect(JSON.parse(run.updated_input!)).toEqual({ command: "echo rewritten > out.txt" });
  });

  it("a PreToolUse hook's ask goes to the host once more, after the harness's own approval; refused, the call does not run", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "touch made.txt", description: "test" } }] }, { text: "ok" }], agentOptions: sandboxed ? { sandbox: { enabled: true } } : {} });
    const ask = script(h.workspace, "ask.sh", `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touching files needs a second look"}}'`);
    writeFileSync(h.agent.paths.systemConfig, hooksYaml({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: ask }] }] })(readFileSync(h.agent.paths.systemConfig, "utf8")));
    const asked: string[] = [];
    const approve = async (call: { name: string }) => {
      asked.push(call.name);
      return asked.length === 1 ? ("allow" as const) : ("deny" as const);
    };
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const streamed = await collect(session.run("go", { approve }));
    await session.dispose();
    expect(asked).toEqual(["exec_command", "exec_command"]);
    expect(existsSync(join(h.workspace, "made.txt"))).toBe(false);
    expect(lastToolResults(h).join("\n")).toContain("[denied: a PreToolUse hook asked for confirmation and it was refused] touching files needs a second look");
    expect(hookRuns(streamed)[0]).toMatchObject({ outcome: "ok", decision: "ask" });
  });

  it("a PostToolUse hook's block reason reaches the model with the tool output", async () => {
    const { trace } = await runWithHooks(
      [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo built", description: "test" } }] }, { text: "ok" }],
      (ws) => ({
        PostToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: script(ws, "lint.sh", `out=$(jq -r '.tool_response.output' | head -n 1)\njq -n --arg r "lint saw: $out" '{decision: "block", reason: $r}'`) }],
          },
        ],
      }),
    );
    const seen = lastToolResults(h!).join("\n");
    expect(seen).toContain("built");
    expect(seen).toContain("[PostToolUse hook] lint saw: built");
    expect(hookRuns(trace)[0]).toMatchObject({ hook_event: "PostToolUse", outcome: "blocked", decision: "block" });
  });

  it("a hook past its timeout is stopped, recorded as timeout, and the call goes on", async () => {
    const { streamed, trace } = await runWithHooks(
      [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo still-ran", description: "test" } }] }, { text: "ok" }],
      () => ({ PreToolUse: [{ hooks: [{ type: "command", command: "sleep 1000", timeout: 0.2 }] }] }),
    );
    expect(hookRuns(streamed)[0]).toMatchObject({ hook_event: "PreToolUse", outcome: "timeout", command: "sleep 1000" });
    expect(hookRuns(trace)[0]?.outcome).toBe("timeout");
    expect(lastToolResults(h!).join("\n")).toContain("still-ran");
  });

  it("hooks get Claude Code's documented input on stdin, and UserPromptSubmit, SessionStart and Stop run", async () => {
    let log = "";
    const { trace, session } = await runWithHooks(
      [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "true", description: "test" } }] }, { text: "ok" }],
      (ws) => {
        log = join(ws, "hook-inputs.jsonl");
        const record = script(ws, "record.sh", `cat >> "$CLAUDE_PROJECT_DIR/hook-inputs.jsonl"\necho >> "$CLAUDE_PROJECT_DIR/hook-inputs.jsonl"`);
        const each = [{ hooks: [{ type: "command", command: record }] }];
        return { SessionStart: each, UserPromptSubmit: each, PreToolUse: each, PostToolUse: each, Stop: each };
      },
    );
    const inputs = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inputs.map((i) => i.hook_event_name)).toEqual(["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]);
    for (const input of inputs) {
      expect(input.session_id).toBe(session.id);
      expect(input.cwd).toBe(h!.workspace);
      expect(input.transcript_path).toBe(session.tracePath);
    }
    expect(inputs[0]).toMatchObject({ source: "startup" });
    expect(inputs[1]).toMatchObject({ prompt: "go" });
    expect(inputs[2]).toMatchObject({ tool_name: "exec_command", tool_input: { cmd: "true", command: "true", description: "test" } });
    expect(inputs[3]).toMatchObject({ tool_name: "exec_command", tool_response: { output: expect.any(String) } });
    expect(inputs[4]).toMatchObject({ stop_hook_active: false });
    expect(hookRuns(trace).map((r) => `${r.hook_event}:${r.outcome}`)).toEqual(["SessionStart:ok", "UserPromptSubmit:ok", "PreToolUse:ok", "PostToolUse:ok", "Stop:ok"]);
  });

  it("a UserPromptSubmit hook that exits 2 keeps the prompt from the model", async () => {
    const { trace } = await runWithHooks([{ text: "never asked" }], (ws) => ({
      UserPromptSubmit: [{ hooks: [{ type: "command", command: script(ws, "no.sh", `echo "no secrets in prompts" >&2\nexit 2`) }] }],
    }));
    expect(h!.kit.requests).toHaveLength(0);
    expect(hookRuns(trace)[0]).toMatchObject({ hook_event: "UserPromptSubmit", outcome: "blocked", reason: "no secrets in prompts" });
  });
});

describe("PreCompact before an automatic compaction", () => {
  it("runs with trigger auto, recorded right before compaction_begin, when the turns trigger compacts mid-session", async () => {
    h = await startHarness({
      systemConfigPatch: (y) => y.replace(/max_session_turns:.*$/m, "max_session_turns: 2").replace(/^(\s*)mode: summarize/m, "$1mode: discard"),
      script: [{ toolCalls: [{ name: "read_file", arguments: { file_path: "missing.txt" } }] }, { text: "no file" }, { text: "fresh start" }],
      agentOptions: sandboxed ? { sandbox: { enabled: true } } : {},
    });
    const record = script(h.workspace, "record.sh", `cat >> "$CLAUDE_PROJECT_DIR/precompact.jsonl"\necho >> "$CLAUDE_PROJECT_DIR/precompact.jsonl"`);
    writeFileSync(h.agent.paths.systemConfig, hooksYaml({ PreCompact: [{ hooks: [{ type: "command", command: record }] }] })(readFileSync(h.agent.paths.systemConfig, "utf8")));
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("look", { approve: allow }));
    expect(existsSync(join(h.workspace, "precompact.jsonl"))).toBe(false);
    // The file the closing context is in (the compaction moves the session on to a new one).
    const tracePath = session.tracePath;
    const next = await collect(session.run("again", { approve: allow }));
    await session.dispose();
    expect(h.kit.violations).toEqual([]);
    const inputs = readFileSync(join(h.workspace, "precompact.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inputs).toEqual([expect.objectContaining({ hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "", session_id: session.id })]);
    // Streamed to the host and recorded in the trace, just before the compaction it announced.
    const kinds = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "event_msg" && (m.payload.type === "hook_run" || m.payload.type === "compaction_begin") ? [m.payload.type === "hook_run" ? `hook_run:${m.payload.hook_event}:${m.payload.outcome}` : m.payload.type] : []));
    expect(kinds(next)).toEqual(["hook_run:PreCompact:ok", "compaction_begin"]);
    const all = [...traceOf(tracePath)];
    const preIndex = all.findIndex((m) => m.type === "event_msg" && m.payload.type === "hook_run");
    expect(preIndex).toBeGreaterThanOrEqual(0);
    const after = all[preIndex + 1];
    expect(after?.type === "event_msg" ? after.payload.type : undefined).toBe("compaction_begin");
    // A replay writes the recorded PreCompact record back at its place and runs no hook.
    const replayed = await h.agent.replay({ sessionId: session.id, tools: "recorded" });
    expect(replayed.summary).toBe("identical");
    expect(existsSync(join(replayed.workspace, "precompact.jsonl"))).toBe(false);
    expect(readFileSync(join(h.workspace, "precompact.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
  });
});

describe("hooks in a goal run", () => {
  it("SessionStart and UserPromptSubmit run before the first round (their context in round 1's input), Stop once at the end", async () => {
    h = await startHarness({ script: [{ text: "Round one: made a plan." }, (r) => ({ toolCalls: [{ name: "write_file", arguments: { file_path: /goal_file: (\S+)/.exec(r.messages.map((m) => m.text ?? "").join("\n"))![1]!, content: "objective: x\nstatus: complete\n" } }] }), { text: "done" }], agentOptions: sandboxed ? { sandbox: { enabled: true } } : {} });
    const record = script(h.workspace, "record.sh", `cat >> "$CLAUDE_PROJECT_DIR/goal-hooks.jsonl"\necho >> "$CLAUDE_PROJECT_DIR/goal-hooks.jsonl"\necho "remember the style guide"`);
    const each = [{ hooks: [{ type: "command", command: record }] }];
    writeFileSync(h.agent.paths.systemConfig, hooksYaml({ SessionStart: each, UserPromptSubmit: each, Stop: each })(readFileSync(h.agent.paths.systemConfig, "utf8")));
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const streamed = await collect(session.run("make the tests pass", { approve: allow, goal: { budget: "500k" } }));
    const tracePath = session.tracePath;
    await session.dispose();
    expect(h.kit.violations).toEqual([]);
    const inputs = readFileSync(join(h.workspace, "goal-hooks.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inputs.map((i) => i.hook_event_name)).toEqual(["SessionStart", "UserPromptSubmit", "Stop"]);
    expect(inputs[1]).toMatchObject({ prompt: "make the tests pass" });
    const firstRound = h.kit.requests[0]!.messages.filter((m) => m.role === "user").map((m) => m.text ?? "");
    expect(firstRound).toContain("[UserPromptSubmit hook context]\nremember the style guide");
    // The objective stays the Human's words: round 2 continues it without the hook's context.
    const second = h.kit.requests[1]!.messages.filter((m) => m.role === "user" && m.kind === "text").map((m) => m.text ?? "");
    expect(second.at(-1)).toBe("Continue working on the objective:\nmake the tests pass");
    const order = (ms: OmniMessage[]) => ms.flatMap((m) => (m.type === "event_msg" && ["hook_run", "goal_started", "goal_finished"].includes(m.payload.type) ? [m.payload.type === "hook_run" ? `hook:${m.payload.hook_event}` : m.payload.type] : []));
    // goal_started is recorded, not streamed (goal-loop.ts); goal_finished is both.
    expect(order(streamed)).toEqual(["hook:SessionStart", "hook:UserPromptSubmit", "goal_finished", "hook:Stop"]);
    expect(order(traceOf(tracePath))).toEqual(["hook:SessionStart", "hook:UserPromptSubmit", "goal_started", "goal_finished", "hook:Stop"]);
  });

  it("a UserPromptSubmit hook that blocks starts no goal", async () => {
    h = await startHarness({ script: [{ text: "never asked" }], agentOptions: sandboxed ? { sandbox: { enabled: true } } : {} });
    writeFileSync(h.agent.paths.systemConfig, hooksYaml({ UserPromptSubmit: [{ hooks: [{ type: "command", command: script(h.workspace, "no.sh", `echo "not this goal" >&2\nexit 2`) }] }] })(readFileSync(h.agent.paths.systemConfig, "utf8")));
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const streamed = await collect(session.run("deploy it", { approve: allow, goal: {} }));
    await session.dispose();
    expect(h.kit.requests).toHaveLength(0);
    expect(streamed.some((m) => m.type === "event_msg" && m.payload.type === "goal_started")).toBe(false);
    expect(hookRuns(streamed)).toEqual([expect.objectContaining({ hook_event: "UserPromptSubmit", outcome: "blocked", reason: "not this goal" })]);
  });
});

describe("workspace hooks file", () => {
  it("runs only once the user trusted it, and not after it changed", async () => {
    h = await startHarness({ script: [{ text: "one" }, { text: "two" }, { text: "three" }], agentOptions: sandboxed ? { sandbox: { enabled: true } } : {} });
    const ws = h.workspace;
    const mark = script(ws, "mark.sh", `cat >/dev/null\necho ran >> "$CLAUDE_PROJECT_DIR/marks.txt"`);
    mkdirSync(join(ws, ".penguin"), { recursive: true });
    const hooksFile = join(ws, WORKSPACE_HOOKS_FILE);
    writeFileSync(hooksFile, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: mark }] }] } }));
    const marks = () => (existsSync(join(ws, "marks.txt")) ? readFileSync(join(ws, "marks.txt"), "utf8").trim().split("\n").length : 0);
    const once = async (): Promise<OmniMessage[]> => {
      const session = await h!.agent.createSession({ workspaceDir: ws });
      const out = await collect(session.run("go", { approve: allow }));
      await session.dispose();
      return out;
    };

    expect(hookRuns(await once())).toEqual([]);
    expect(marks()).toBe(0);

    const trusted = await trustWorkspaceHooks(h.root, ws);
    expect(trusted.file).toBe(hooksFile);
    expect(JSON.parse(readFileSync(join(h.root, "trusted_hooks.json"), "utf8"))).toEqual({ [ws]: trusted.digest });
    expect(hookRuns(await once()).map((r) => r.outcome)).toEqual(["ok"]);
    expect(marks()).toBe(1);

    // Edited after the trust (as a session's own tools could): not run until trusted again.
    writeFileSync(hooksFile, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `${mark}; true` }] }] } }));
    expect(hookRuns(await once())).toEqual([]);
    expect(marks()).toBe(1);
  });
});

describe("hooks in system_config.yaml", () => {
  it("a misspelt hook event is a config error naming the field and the events that exist", () => {
    expect(() => parseSystemConfig("system_prompt: hi\nhooks:\n  PreToolUs:\n    - hooks: []\n", "/x/system_config.yaml")).toThrow(/hooks\.PreToolUs.*is not a hook event this harness runs \(it runs SessionStart/);
  });

  it("a hook without a command is refused with the field", () => {
    expect(() => parseSystemConfig('system_prompt: hi\nhooks:\n  Stop:\n    - hooks: [{ type: command, command: "" }]\n', "/x/system_config.yaml")).toThrow(/hooks.*must not be empty/);
  });
});

describe("hooks and the boundary", () => {
  it.runIf(sandboxed)("a hook sees the session's sandbox: the project config and the traces are not there", async () => {
    let seen = "";
    await runWithHooks([{ text: "ok" }], (ws) => {
      seen = join(ws, "seen.txt");
      const paths = h!.agent.paths;
      return { Stop: [{ hooks: [{ type: "command", command: `{ cat ${JSON.stringify(paths.projectConfig)}; ls ${JSON.stringify(paths.tracesDir)}; } > "$CLAUDE_PROJECT_DIR/seen.txt" 2>&1; true` }] }] };
    });
    // Outside the sandbox both are there (the trace of this very session was written before Stop ran).
    expect(readFileSync(h!.agent.paths.projectConfig, "utf8")).toContain("sk-test");
    expect(existsSync(h!.agent.paths.tracesDir)).toBe(true);
    const text = readFileSync(seen, "utf8");
    expect(text).not.toContain("sk-test");
    expect(text.match(/No such file or directory/g)).toHaveLength(2);
  });
});

describe("hooks and replay", () => {
  it("a replay with recorded tools writes the recorded hook records back without running a hook; rerun runs the tool hooks again", async () => {
    const mark = `jq -r .hook_event_name >> "$CLAUDE_PROJECT_DIR/marks.txt"`;
    const each = [{ hooks: [{ type: "command", command: mark }] }];
    await runWithHooks([{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo hi", description: "test" } }] }, { text: "ok" }], () => ({ UserPromptSubmit: each, PreToolUse: each, Stop: each }));
    const marksIn = (ws: string) => (existsSync(join(ws, "marks.txt")) ? readFileSync(join(ws, "marks.txt"), "utf8").trim().split("\n") : []);
    expect(marksIn(h!.workspace)).toEqual(["UserPromptSubmit", "PreToolUse", "Stop"]);
    const sessionId = h!.agent.latestSessionId()!;
    const recorded = await h!.agent.replay({ sessionId, tools: "recorded" });
    expect(recorded.summary).toBe("identical");
    expect(marksIn(recorded.workspace)).toEqual([]);
    expect(marksIn(h!.workspace)).toEqual(["UserPromptSubmit", "PreToolUse", "Stop"]);
    const rerun = await h!.agent.replay({ sessionId, tools: "rerun" });
    expect(rerun.summary).toBe("identical");
    // A rerun's workspace starts as the recording's first checkpoint (taken before the tool call:
    // the prompt hook's mark was there): the tool hook ran once more, the task hooks did not.
    expect(marksIn(rerun.workspace)).toEqual(["UserPromptSubmit", "PreToolUse"]);
  });
});

describe("the README's hook example", () => {
  it("parses as system_config.yaml and blocks rm -rf (exit 2), passing other commands", async () => {
    const { runHookProcess } = await import("../../src/hooks/hook-runner.js");
    const readme = readFileSync(new URL("../../../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## Hooks")); // a "## Hooks" or "### Hooks" heading
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const config = parseSystemConfig(`system_prompt: hi\n${yaml}`, "README.md");
    const hook = config.hooks!.PreToolUse![0]!;
    expect(hook.matcher).toBe("Bash");
    const run = (command: string) =>
      runHookProcess({ command: hook.hooks[0]!.command, stdin: JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "exec_command", tool_input: { command } }), cwd: process.cwd(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutMs: 30_000 });
    expect(await run("rm -rf /")).toMatchObject({ kind: "exited", code: 2, stderr: "rm -rf is not allowed here\n" });
    expect(await run("ls")).toMatchObject({ kind: "exited", code: 0 });
  });
});
