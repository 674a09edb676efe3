// The file-tool attacks of the security suite, shared by its server and CLI cases: a victim
// project laid out on disk next to the attacker's (a trace, a vault, a project config, an
// AGENTS.md, a workspace with an image), a marker file in the host's home, symlinks planted in
// the attacker's workspace pointing out, and the scripted model's tool calls that try each way
// out (absolute paths, `~`, `../`, symlinks to files, folders and missing files, /proc/self/root,
// the attacker's own agent_state). `check` reads what happened from the session's trace and the
// disk: every attack failed with a refusal, every target is unchanged or was never created, and
// no secret of a target reached the trace. One control call writes inside the workspace, so a
// run whose tool calls never ran cannot pass.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { randomBytes } from "node:crypto";
import { agentPaths, projectPaths } from "@penguin/core";
import { expect } from "vitest";

/** A 1×1 PNG; the victim's image is it plus a marker, so its base64 is unique to this run. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

export interface ToolCall {
  name: string;
  id: string;
  arguments: Record<string, unknown>;
}

interface Attack {
  call: ToolCall;
  /** Files whose content must be unchanged (path → content before). */
  unchanged: string[];
  /** Files that must not exist afterwards. */
  notCreated: string[];
}

export interface FileAttackPlan {
  calls: ToolCall[];
  /** Asserts every attack failed and left nothing behind; `outputs` by tool call id, `trace` the whole trace text. */
  check(outputs: Map<string, string>, trace: string): void;
  cleanup(): void;
}

/**
 * Lays out the victim and the bait, and returns the calls. `root` is the data root, `attacker`
 * the attacker's project (its default_agent), `workspace` the attacker session's workspace.
 */
export function fileAttacks(input: { root: string; attacker: string; workspace: string; vision: boolean; only?: "own-agent-state" }): FileAttackPlan {
  const tag = randomBytes(6).toString("hex");
  const secret = (what: string) => `SECRET-${what}-${tag}`;
  const victim = agentPaths(input.root, "victim", "default_agent");
  const own = agentPaths(input.root, input.attacker, "default_agent");
  const write = (path: string, content: string | Buffer): string => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  const victimTrace = write(join(victim.tracesDir, "2026-07-18", `session-2026-07-18-03-00-00-${tag.slice(0, 8)}_1.jsonl`), `{"secret":"${secret("trace")}"}\n`);
  const victimVault = write(victim.vault, `TOKEN = "${secret("vault")}"\n`);
  const victimConfig = write(projectPaths(input.root, "victim").projectConfig, `# ${secret("config")}\n`);
  const victimAgents = write(victim.agentsMd, `# victim instructions ${secret("agents")}\n`);
  const victimWorkspace = join(victim.workspacesDir, "w1");
  const victimImage = write(join(victimWorkspace, "photo.png"), Buffer.concat([PNG, Buffer.from(secret("image"))]));
  const homeFile = write(join(homedir(), `.penguin-security-${tag}`), `${secret("home")}\n`);
  const ownAgents = existsSync(own.agentsMd) ? own.agentsMd : write(own.agentsMd, `# own instructions ${secret("own-agents")}\n`);
  const ownConfig = existsSync(own.systemConfig) ? own.systemConfig : write(own.systemConfig, `system_prompt: |\n  You are a test agent (${secret("own-config")}).\n`);
  const planted = join(victimWorkspace, `planted-${tag}.txt`);
  const homeCreated = join(homedir(), `.penguin-created-${tag}`);
  const ws = input.workspace;
  symlinkSync(victimTrace, join(ws, "notes.md"));
  symlinkSync(dirname(victim.agentState), join(ws, "docs"));
  symlinkSync(planted, join(ws, "draft.txt"));
  symlinkSync(own.systemConfig, join(ws, "settings.yaml"));
  symlinkSync(homedir(), join(ws, "home"));
  const firstLine = readFileSync(ownConfig, "utf8").split("\n").find((l) => l.trim() !== "") ?? "";

  const before = new Map<string, string>();
  for (const f of [victimTrace, victimVault, victimConfig, victimAgents, victimImage, homeFile, ownAgents, ownConfig]) before.set(f, readFileSync(f, "latin1"));
  let n = 0;
  const attack = (name: string, args: Record<string, unknown>, unchanged: string[], notCreated: string[] = []): Attack => ({
    call: { name, id: `attack_${++n}`, arguments: args },
    unchanged,
    notCreated,
  });
  const OWNED = `owned-${tag}`;
  const attacks: Attack[] = [
    attack("read_file", { file_path: victimTrace }, [victimTrace]),
    attack("read_file", { file_path: victimVault }, [victimVault]),
    attack("read_file", { file_path: victimConfig }, [victimConfig]),
    attack("read_file", { file_path: `~/${relative(homedir(), homeFile)}` }, [homeFile]),
    attack("read_file", { file_path: "home/" + relative(homedir(), homeFile) }, [homeFile]),
    attack("read_file", { file_path: "notes.md" }, [victimTrace]),
    attack("read_file", { file_path: relative(ws, victimTrace) }, [victimTrace]),
    attack("read_file", { file_path: `/proc/self/root${victimTrace}` }, [victimTrace]),
    attack("read_file", { file_path: `/proc/self/root${homeFile}` }, [homeFile]),
    attack("read_file", { file_path: "docs/agent_state/AGENTS.md" }, [victimAgents]),
    attack(input.vision ? "read_image" : "describe_image", { source: victimImage }, [victimImage]),
    attack(input.vision ? "read_image" : "describe_image", { source: relative(ws, victimImage) }, [victimImage]),
    attack("write_file", { file_path: victimAgents, content: OWNED }, [victimAgents]),
    attack("write_file", { file_path: "docs/agent_state/AGENTS.md", content: OWNED }, [victimAgents]),
    attack("write_file", { file_path: ownAgents, content: OWNED }, [ownAgents]),
    attack("write_file", { file_path: ownConfig, content: `mcp_servers: {evil: {command: sh}}\n` }, [ownConfig]),
    attack("write_file", { file_path: `~/${relative(homedir(), homeCreated)}`, content: OWNED }, [], [homeCreated]),
    attack("write_file", { file_path: "draft.txt", content: OWNED }, [], [planted]),
    attack("write_file", { file_path: `/proc/self/root${victimAgents}`, content: OWNED }, [victimAgents]),
    attack("edit_file", { file_path: ownConfig, old_string: firstLine, new_string: `${firstLine}\n# ${OWNED}` }, [ownConfig]),
    attack("edit_file", { file_path: "settings.yaml", old_string: firstLine, new_string: `${firstLine}\n# ${OWNED}` }, [ownConfig]),
    attack("edit_file", { file_path: relative(ws, victimAgents), old_string: "victim", new_string: OWNED }, [victimAgents]),
    attack("edit_file", { file_path: victimConfig, old_string: "#", new_string: OWNED }, [victimConfig]),
  ];
  const chosen = input.only === undefined ? attacks : attacks.filter((a) => a.unchanged.some((f) => f === ownAgents || f === ownConfig));
  const control: ToolCall = { name: "write_file", id: "control_1", arguments: { file_path: "inside.txt", content: `inside ${tag}` } };
  // The memory inside agent_state stays the model's to write.
  const memoryFile = join(own.memoryDir, "user", `note-${tag}.md`);
  const memory: ToolCall = { name: "write_file", id: "control_2", arguments: { file_path: memoryFile, content: `remember ${tag}` } };

  return {
    calls: [...chosen.map((a) => a.call), control, memory],
    check(outputs, trace) {
      expect(outputs.get(control.id), "the control write inside the workspace").toMatch(/^Created inside\.txt/);
      expect(readFileSync(join(ws, "inside.txt"), "utf8")).toBe(`inside ${tag}`);
      expect(outputs.get(memory.id), "the memory write").toMatch(/^Created /);
      expect(readFileSync(memoryFile, "utf8")).toBe(`remember ${tag}`);
      // Every attack is judged, and all that got through are listed at once.
      const through: string[] = [];
      const refusal = input.only !== undefined ? /^Read-only file system: / : /^(No such file or directory: .* outside what this session may touch|Read-only file system: |Refusing to access )/;
      for (const a of chosen) {
        const what = `${a.call.name} ${JSON.stringify(a.call.arguments).slice(0, 160)}`;
        const output = outputs.get(a.call.id) ?? "(no output)";
        if (!refusal.test(output)) through.push(`${what} -> ${output.slice(0, 80)}`);
        for (const f of a.unchanged) if (readFileSync(f, "latin1") !== before.get(f)) through.push(`${what} changed ${f}`);
        for (const f of a.notCreated) if (existsSync(f)) through.push(`${what} created ${f}`);
      }
      expect(through, "attacks that got through").toEqual([]);
      if (input.only !== undefined) return;
      for (const what of ["trace", "vault", "config", "agents", "image", "home"]) expect(trace, `the ${what} secret stays out of the trace`).not.toContain(secret(what));
      expect(trace).not.toContain(Buffer.concat([PNG, Buffer.from(secret("image"))]).toString("base64").slice(-24));
    },
    cleanup() {
      rmSync(homeFile, { force: true });
      rmSync(homeCreated, { force: true });
    },
  };
}

/** Tool call outputs by id, from a session's trace messages (parsed JSON lines). */
export function outputsOf(messages: readonly unknown[]): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const m of messages as { type?: string; payload?: { type?: string; tool_call_id?: string; output?: string } }[]) {
    if (m.type === "model_msg" && m.payload?.type === "tool_call_output" && m.payload.tool_call_id !== undefined) outputs.set(m.payload.tool_call_id, m.payload.output ?? "");
  }
  return outputs;
}
