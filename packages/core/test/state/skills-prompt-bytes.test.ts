// The system prompt a session records must not change when the skills are read another way
// (issue 33: plain SKILL.md front matter skips the YAML parser). The expected prompt,
// fixtures/skills-prompt.golden.txt, was recorded by this test on the tree before that change
// (merge4, every skill through `yaml`), with the run's temp paths, session id, date, kernel version, shell and workspace memory folder's hash
// replaced by placeholders (the kernel differs between machines: CI failed on it once).
// The agent has the library skills plus installed ones the fast reading takes and ones it
// leaves to the parser (a comment, a folded block, an escaped quote, a date-like value), and
// the workspace sits in a repository with AGENTS.md/CLAUDE.md files above it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionMetaOf } from "@penguin/omnimessage";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, traceOf, type Harness } from "../helpers/harness.js";

const GOLDEN = new URL("./fixtures/skills-prompt.golden.txt", import.meta.url);

const INSTALLED: Record<string, string> = {
  "plain-skill": "name: plain-skill\ndescription: Use for plain things, with commas, [brackets] and C# code.\nversion: 3\npreinstall: true",
  "quoted-skill": 'description: "Quoted: with a colon"\nupdated: "2026-12-01"\nshort_description: Short one',
  "commented-skill": "# a comment line\ndescription: Has a comment above   # and one after",
  "folded-skill": "description: >-\n  Folded over\n  two lines\nversion: 2",
  "escaped-skill": 'description: "An escaped \\"quote\\" and a tab\\there"',
  "dated-skill": "description: Dated\nupdated: 2026-11-30",
};

let h: Harness | undefined;
const made: string[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the recorded system prompt with skills and project instructions", { timeout: 60_000 }, () => {
  it("is byte for byte the prompt recorded before plain front matter skipped the YAML parser", async () => {
    const repo = mkdtempSync(join(tmpdir(), "penguin-repo-"));
    made.push(repo);
    mkdirSync(join(repo, ".git"));
    writeFileSync(join(repo, "AGENTS.md"), "ROOT-RULE: tabs are forbidden\n");
    const workspace = join(repo, "pkg", "app");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(repo, "pkg", "CLAUDE.md"), "PKG-CLAUDE-RULE: run pnpm test\n");
    writeFileSync(join(workspace, "AGENTS.md"), "APP-RULE: answer in French\n");

    h = await startHarness();
    writeFileSync(h.agent.paths.agentsMd, "AGENT-OWN-RULE: be brief\n");
    for (const [name, frontMatter] of Object.entries(INSTALLED)) {
      mkdirSync(join(h.agent.paths.skillsDir, name), { recursive: true });
      writeFileSync(join(h.agent.paths.skillsDir, name, "SKILL.md"), `---\n${frontMatter}\n---\n\n# ${name}\n\nThe body.\n`);
    }
    const session = await h.agent.createSession({ workspaceDir: workspace, persist: true, sandbox: { enabled: false, confineFiles: true } });
    const sessionId = session.id;
    const prompt = traceOf(session.tracePath).map(sessionMetaOf).find((m) => m !== undefined)?.system_prompt ?? "";
    await session.dispose();

    const normalized = prompt.split(h.root).join("<ROOT>").split(repo).join("<REPO>").split(sessionId).join("<SESSION>").replace(/^- Date: .*$/m, "- Date: <TODAY>").replace(/^- OS version: .*$/m, "- OS version: <OS>").replace(/^- Shell: .*$/m, "- Shell: <SHELL>").replace(/\/memory\/app-[0-9a-f]{8}/g, "/memory/app-<HASH>");
    for (const name of Object.keys(INSTALLED)) expect(normalized).toContain(name);
    expect(normalized).toContain("APP-RULE");
    expect(normalized).toBe(readFileSync(GOLDEN, "utf8"));
  });
});
