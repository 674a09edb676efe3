// The README's SDK example is real: packages/core/examples/sdk.ts (whose code the README shows) runs as
// a child process against a model entry pointing at the testkit, answers, and resumes.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers/harness.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe("README SDK example", () => {
  it("runs a session against a configured model entry", async () => {
    h = await startHarness({ script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "ls", description: "list" } }] }, { text: "There is one file: a.txt" }] });
    const tsx = createRequire(import.meta.url).resolve("tsx");
    // Asynchronous on purpose: the testkit answering the child lives in this process.
    const child = spawn(process.execPath, ["--conditions=development", "--import", tsx, join(repo, "packages/core/examples/sdk.ts"), "what is here?"], {
      cwd: h.workspace,
      env: { ...process.env, PENGUIN_HOME: h.root },
    });
    const r = { stdout: "", stderr: "" };
    child.stdout.on("data", (d: Buffer) => (r.stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (r.stderr += d.toString()));
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("There is one file: a.txt");
    expect(r.stdout).toMatch(/resumed session-\S+ with 4 messages of history/);
    expect(h.kit.requests[0]!.messages.some((m) => m.text === "what is here?")).toBe(true);
  }, 60_000);

  it("is the code the README shows", () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const code = readFileSync(join(repo, "packages/core/examples/sdk.ts"), "utf8").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("//"));
    for (const line of code) expect(readme).toContain(line);
  });
});
