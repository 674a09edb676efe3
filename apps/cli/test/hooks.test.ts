// `penguin hooks show` and `penguin hooks trust` through the built CLI on a real data root and a
// workspace with a `.penguin/hooks.json`: show names the commands and says the file is not
// trusted; trust records the file's digest in the data root; an edit makes it untrusted again;
// a file that is not a hooks file is refused with the file and the problem.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { cleanEnv } from "./helpers/world.js";

beforeAll(ensureBuilt, 300_000);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function world() {
  const root = mkdtempSync(join(tmpdir(), "penguin-hooks-root-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-hooks-ws-"));
  dirs.push(root, workspace);
  mkdirSync(join(workspace, ".penguin"));
  const file = join(workspace, ".penguin", "hooks.json");
  return { root, workspace, file, env: cleanEnv({ PENGUIN_HOME: root }) };
}

describe("penguin hooks", { timeout: 60_000 }, () => {
  it("shows untrusted hooks, trusts them by digest, and an edit needs a new trust", async () => {
    const w = world();
    writeFileSync(w.file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh", timeout: 5 }] }] } }));
    const before = await runCli(["hooks", "show", "--workspace", w.workspace], { env: w.env });
    expect(before.code).toBe(0);
    expect(before.stdout).toContain("NOT trusted");
    expect(before.stdout).toContain("PreToolUse [Bash]: ./guard.sh (timeout 5s)");

    const trusted = await runCli(["hooks", "trust", "--workspace", w.workspace], { env: w.env });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("PreToolUse [Bash]: ./guard.sh");
    expect(Object.keys(JSON.parse(readFileSync(join(w.root, "trusted_hooks.json"), "utf8")))).toEqual([w.workspace]);
    expect((await runCli(["hooks", "show", "--workspace", w.workspace], { env: w.env })).stdout).toContain("trusted, its hooks run");

    writeFileSync(w.file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./other.sh" }] }] } }));
    expect((await runCli(["hooks", "show", "--workspace", w.workspace], { env: w.env })).stdout).toContain("NOT trusted");
  });

  it("refuses to trust a file with an unknown event, naming the file and the field", async () => {
    const w = world();
    writeFileSync(w.file, JSON.stringify({ hooks: { PreToolUs: [] } }));
    const r = await runCli(["hooks", "trust", "--workspace", w.workspace], { env: w.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(w.file);
    expect(r.stderr).toContain("hooks.PreToolUs");
  });
});
