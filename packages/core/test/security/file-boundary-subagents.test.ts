// A child session's file tools keep to its parent's boundary. The parent is confined with
// `confineFiles` and no bwrap (as a server session without the sandbox is), so this runs
// everywhere; its child, started by run_subagent, reads another workspace's notes under the
// data root and overwrites its agent's AGENTS.md with the file tools: both are refused with the
// answers a command would get, and the notes never reach the child's result. Without the
// boundary the same child reads the notes (so the check can fail), while AGENTS.md stays
// read-only to the model's tools in every session.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import type { SandboxOptions } from "../../src/environment/commands/sandbox.js";
import { routeConversations, runSubagent, toolResults, type Turn } from "../subagents/helpers/conversations.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const NOTES = "another team's notes 7f3a";

async function childTries(sandbox: SandboxOptions | undefined): Promise<{ read: string; write: string; agentsMd: string; before: string }> {
  h = await startHarness();
  const paths = h.agent.paths;
  const other = join(paths.workspacesDir, "other-ws");
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, "notes.txt"), `${NOTES}\n`);
  mkdirSync(paths.agentState, { recursive: true });
  writeFileSync(paths.agentsMd, "# the agent's instructions\n");
  const before = readFileSync(paths.agentsMd, "utf8");
  const script: Record<string, Turn[]> = {
    "PARENT-FILES": [{ toolCalls: [runSubagent({ prompt: "CHILD-FILES: look around" })] }, { text: "done" }],
    "CHILD-FILES": [
      { toolCalls: [{ name: "read_file", arguments: { file_path: join(other, "notes.txt") } }] },
      { toolCalls: [{ name: "write_file", arguments: { file_path: paths.agentsMd, content: "owned" } }] },
      (r) => ({ text: toolResults(r).at(-1) ?? "" }),
    ],
  };
  const conv = routeConversations(h.kit, script);
  const session = await h.agent.createSession({ workspaceDir: h.workspace, ...(sandbox === undefined ? {} : { sandbox }) });
  await collect(session.run("PARENT-FILES: delegate", { approve: allow }));
  await session.dispose();
  expect(conv.errors).toEqual([]);
  const child = conv.requests("CHILD-FILES");
  return { read: toolResults(child[1]!).at(-1) ?? "", write: toolResults(child[2]!).at(-1) ?? "", agentsMd: readFileSync(paths.agentsMd, "utf8"), before };
}

describe("subagents and the file boundary", { timeout: 60_000 }, () => {
  it("a child's file tools keep to the parent's boundary, with no bwrap needed", async () => {
    const r = await childTries({ enabled: false, confineFiles: true });
    expect(r.read).toMatch(/^No such file or directory: .* outside what this session may touch/);
    expect(r.read).not.toContain(NOTES);
    expect(r.write).toMatch(/^Read-only file system: /);
    expect(r.agentsMd).toBe(r.before);
  });

  it("without a boundary the same child reads the notes (the check above can fail); AGENTS.md stays read-only", async () => {
    const r = await childTries(undefined);
    expect(r.read).toContain(NOTES);
    expect(r.write).toMatch(/^Read-only file system: /);
    expect(r.agentsMd).toBe(r.before);
  });
});
