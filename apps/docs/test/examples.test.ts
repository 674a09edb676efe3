// Every fenced block of the site is either run here or says why not: a block must follow a
// `<!-- run… -->` or `<!-- not-run: reason -->` comment. Runnable shell blocks run as written
// (bash -e, from the repository, with the built CLI) in a fresh data root, with a free port and
// temp paths swapped in for the fixed ones (7399, /tmp/penguin-try, /tmp/penguin-testkit.log),
// against the scripted model where they need one; their marker says what stdout must contain.
// JSON blocks marked as envelopes are decoded line by line with the OmniMessage schema, and
// configuration fragments are parsed by the program's own config parsers.
// Identical blocks (the English and Chinese pages share them) run once.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseProjectConfig, parseSystemConfig } from "@penguin/core";
import { decodeEnvelope } from "@penguin/omnimessage";
import { ensureBuilt } from "../../cli/test/helpers/build.js";
import { closedPort } from "../../cli/test/helpers/ports.js";
import { fencedBlocks, REPO, sitePages, type FencedBlock } from "./site-files.js";

const blocks = sitePages().flatMap(fencedBlocks);
const STDOUT_CONTAINS = /^<!-- run: stdout contains "(.+)" -->$/;
const ENVELOPES = "<!-- run: each line decodes as an OmniMessage envelope -->";
const SYSTEM_CONFIG = "<!-- run: parses as a system_config.yaml fragment -->";
const PROJECT_CONFIG = "<!-- run: parses as a .project_config.toml -->";

function unique(list: FencedBlock[]): FencedBlock[] {
  const seen = new Map<string, FencedBlock>();
  for (const b of list) if (!seen.has(`${b.marker}\n${b.body}`)) seen.set(`${b.marker}\n${b.body}`, b);
  return [...seen.values()];
}

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function cleanEnv(root: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/_API_KEY$|_BASE_URL$|^PENGUIN_|^NO_COLOR$|^FORCE_COLOR$/.test(k)) env[k] = v;
  return { ...env, NO_COLOR: "1", PENGUIN_RETRY_DELAY_SCALE: "0", PENGUIN_HOME: root };
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-ec", script], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the site's code blocks", () => {
  it("each carry a run or not-run marker, a not-run one with its reason", () => {
    expect(blocks.length).toBeGreaterThan(20);
    const unmarked = blocks.filter((b) => b.marker === undefined).map((b) => `${b.page}:${b.line}`);
    expect(unmarked, "blocks without <!-- run… --> or <!-- not-run: reason --> above them").toEqual([]);
    const noReason = blocks.filter((b) => b.marker !== undefined && /^<!-- not-run:?\s*-->$/.test(b.marker)).map((b) => `${b.page}:${b.line}`);
    expect(noReason).toEqual([]);
    const unknownRun = blocks.filter((b) => b.marker?.startsWith("<!-- run") === true && !STDOUT_CONTAINS.test(b.marker) && ![ENVELOPES, SYSTEM_CONFIG, PROJECT_CONFIG].includes(b.marker));
    expect(unknownRun.map((b) => `${b.page}:${b.line} ${b.marker}`), "a run marker this test does not know how to run").toEqual([]);
  });

  it("that are OmniMessage lines decode with the protocol's schema", () => {
    const jsonBlocks = blocks.filter((b) => b.marker === ENVELOPES);
    expect(jsonBlocks.length).toBeGreaterThan(0);
    for (const block of jsonBlocks) {
      for (const line of block.body.split("\n").filter((l) => l.trim() !== "")) {
        const result = decodeEnvelope(JSON.parse(line));
        expect(result.ok, `${block.page}:${block.line}: ${result.ok ? "" : result.error}`).toBe(true);
      }
    }
  });

  it("that are configuration fragments parse with the program's own parsers", () => {
    const system = blocks.filter((b) => b.marker === SYSTEM_CONFIG);
    const project = blocks.filter((b) => b.marker === PROJECT_CONFIG);
    expect(system.length).toBeGreaterThan(0);
    expect(project.length).toBeGreaterThan(0);
    // A fragment leaves out the one required key; everything it sets must be valid.
    for (const b of system) expect(() => parseSystemConfig(`system_prompt: docs\n${b.body}\n`, `${b.page}:${b.line}`)).not.toThrow();
    for (const b of project) expect(() => parseProjectConfig(b.body, `${b.page}:${b.line}`)).not.toThrow();
    // And the parsers do refuse a wrong value, so the check can fail.
    expect(() => parseSystemConfig("system_prompt: docs\nmax_turns: 0\n", "wrong.yaml")).toThrow(/max_turns/);
  });

  describe("that are shell commands", () => {
    beforeAll(ensureBuilt, 300_000);
    const runnable = unique(blocks.filter((b) => b.marker !== undefined && STDOUT_CONTAINS.test(b.marker)));
    it("exist", () => expect(runnable.length).toBeGreaterThanOrEqual(3));
    for (const block of runnable) {
      it(`run as written: ${block.page}:${block.line}`, { timeout: 120_000 }, async () => {
        const dir = mkdtempSync(join(tmpdir(), "penguin-docs-example-"));
        temps.push(dir);
        const port = await closedPort();
        const script = block.body
          .replaceAll("/tmp/penguin-try", join(dir, "root"))
          .replaceAll("/tmp/penguin-testkit.log", join(dir, "testkit.log"))
          .replaceAll("7399", String(port));
        const r = await bash(script, cleanEnv(join(dir, "root")));
        expect(r.stderr).not.toContain("testkit violation");
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain(STDOUT_CONTAINS.exec(block.marker ?? "")?.[1]);
      });
    }
  });
});
