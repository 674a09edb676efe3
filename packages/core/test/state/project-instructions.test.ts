// A session takes the workspace's own AGENTS.md (CLAUDE.md where a folder has none) and its
// parents' up to the repository root into the system prompt its trace records, after the
// agent's AGENTS.md, outermost first. The files are read through the session's boundary: a
// confined session (file tools confined, no bwrap needed) still reads the repository's files
// above its workspace, which its boundary grants one by one, but not a file that links into
// the data root; the same link is read by an unconfined session, so that check can fail.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SandboxOptions } from "../../src/environment/commands/sandbox.js";
import { sessionMetaOf } from "@penguin/omnimessage";
import { probeSandbox } from "../../src/environment/commands/sandbox.js";
import { allow, collect, startHarness, traceOf, type Harness } from "../helpers/harness.js";
import { toolResults } from "../subagents/helpers/conversations.js";

let h: Harness | undefined;
const made: string[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** repo/.git, repo/AGENTS.md, repo/pkg/CLAUDE.md, repo/pkg/app/AGENTS.md + CLAUDE.md (the workspace). */
function repository(): { repo: string; workspace: string } {
  const repo = mkdtempSync(join(tmpdir(), "penguin-repo-"));
  made.push(repo);
  mkdirSync(join(repo, ".git"));
  writeFileSync(join(repo, "AGENTS.md"), "ROOT-RULE: tabs are forbidden\n");
  const pkg = join(repo, "pkg");
  const workspace = join(pkg, "app");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(pkg, "CLAUDE.md"), "PKG-CLAUDE-RULE: run pnpm test\n");
  writeFileSync(join(workspace, "AGENTS.md"), "APP-RULE: answer in French\n");
  writeFileSync(join(workspace, "CLAUDE.md"), "APP-CLAUDE-RULE: never seen\n");
  return { repo, workspace };
}

async function recordedPrompt(workspace: string, sandbox: SandboxOptions): Promise<{ prompt: string; loaded: string[]; skipped: string[] }> {
  h ??= await startHarness();
  const session = await h.agent.createSession({ workspaceDir: workspace, persist: true, sandbox });
  const meta = traceOf(session.tracePath).map(sessionMetaOf).find((m) => m !== undefined);
  const out = { prompt: meta?.system_prompt ?? "", loaded: session.projectInstructions.loaded.map((f) => f.path), skipped: session.projectInstructions.skipped.map((f) => f.path) };
  await session.dispose();
  return out;
}

describe("project instructions in the system prompt", { timeout: 60_000 }, () => {
  it("records the workspace's AGENTS.md and its parents' after the agent's own, outermost first; CLAUDE.md only where no AGENTS.md", async () => {
    const { repo, workspace } = repository();
    h = await startHarness();
    writeFileSync(h.agent.paths.agentsMd, "AGENT-OWN-RULE\n");
    const r = await recordedPrompt(workspace, { enabled: false, confineFiles: true });
    const order = ["AGENT-OWN-RULE", "ROOT-RULE", "PKG-CLAUDE-RULE", "APP-RULE"].map((rule) => r.prompt.indexOf(rule));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(r.prompt).not.toContain("APP-CLAUDE-RULE");
    expect(r.prompt).toContain(`# Project instructions from ${join(repo, "AGENTS.md")}`);
    expect(r.loaded).toEqual([join(repo, "AGENTS.md"), join(repo, "pkg", "CLAUDE.md"), join(workspace, "AGENTS.md")]);
    expect(r.skipped).toEqual([]);
  });

  it("stops at the repository root and reads only the workspace without one", async () => {
    const { repo, workspace } = repository();
    rmSync(join(repo, ".git"), { recursive: true });
    mkdirSync(join(repo, "pkg", ".git"));
    const r = await recordedPrompt(workspace, { enabled: false });
    expect(r.loaded).toEqual([join(repo, "pkg", "CLAUDE.md"), join(workspace, "AGENTS.md")]);
    expect(r.prompt).not.toContain("ROOT-RULE");

    const lone = mkdtempSync(join(tmpdir(), "penguin-lone-"));
    made.push(lone);
    writeFileSync(join(lone, "CLAUDE.md"), "LONE-RULE\n");
    const alone = await recordedPrompt(lone, { enabled: false });
    expect(alone.loaded).toEqual([join(lone, "CLAUDE.md")]);
    expect(alone.prompt).toContain("LONE-RULE");
  });

  it("a parent's AGENTS.md linking into the data root is skipped by a confined session and read by an unconfined one", async () => {
    const { repo, workspace } = repository();
    h = await startHarness();
    const secret = join(h.root, "other-team-notes.md");
    writeFileSync(secret, "DATA-ROOT-SECRET 51c9\n");
    rmSync(join(repo, "AGENTS.md"));
    symlinkSync(secret, join(repo, "AGENTS.md"));

    const confined = await recordedPrompt(workspace, { enabled: false, confineFiles: true });
    expect(confined.prompt).not.toContain("DATA-ROOT-SECRET");
    expect(confined.skipped).toEqual([join(repo, "AGENTS.md")]);
    expect(confined.prompt).toContain("APP-RULE");

    const open = await recordedPrompt(workspace, { enabled: false });
    expect(open.prompt).toContain("DATA-ROOT-SECRET");
  });

  it("a temporary workspace (in the data root) reads nothing above itself, even under a .git", async () => {
    h = await startHarness();
    const project = join(h.root, "default_project");
    mkdirSync(join(project, ".git"), { recursive: true });
    writeFileSync(join(project, "AGENTS.md"), "DATA-ROOT-RULE\n");
    const session = await h.agent.createSession({ persist: true, sandbox: { enabled: false } });
    expect(session.workspace.startsWith(h.agent.paths.workspacesDir)).toBe(true);
    expect(session.projectInstructions).toEqual({ loaded: [], skipped: [] });
    expect(session.systemPrompt).not.toContain("DATA-ROOT-RULE");
    await session.dispose();
  });

  it.skipIf(!probeSandbox().available)("in bwrap, commands see the granted parent files and nothing else of the hidden parent folders", async () => {
    const { repo, workspace } = repository();
    writeFileSync(join(repo, "other-notes.txt"), "NOT-GRANTED\n");
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "cat ../../AGENTS.md; cat ../../other-notes.txt; ls ../..", description: "look" } }] }, { text: "seen" }] });
    const session = await h.agent.createSession({ workspaceDir: workspace, sandbox: { enabled: true } });
    expect(session.projectInstructions.loaded.map((f) => f.path)).toEqual([join(repo, "AGENTS.md"), join(repo, "pkg", "CLAUDE.md"), join(workspace, "AGENTS.md")]);
    await collect(session.run("look around", { approve: allow }));
    await session.dispose();
    const output = toolResults(h.kit.requests[1]!).join("\n");
    expect(output).toContain("ROOT-RULE: tabs are forbidden");
    expect(output).not.toContain("NOT-GRANTED");
    expect(output).toMatch(/No such file or directory/);
  });
});
