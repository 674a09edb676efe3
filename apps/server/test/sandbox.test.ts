// Server sessions run their commands in the bwrap sandbox by default. A session created with
// no workspace (a temporary one under the agent's `workspaces/`, inside the data root) runs a
// scripted `cat ../../../../.project_config.toml`: sandboxed, the command finds nothing and the
// project's API key never reaches the trace; with bwrap missing (a path that does not exist),
// the same task puts the key into the trace, which is the hole the sandbox closes and the
// proof that the check can fail. `/api/me` tells the web app which case it is in, and the
// startup notice tells the operator. Where bwrap cannot run here, the sandboxed case is
// skipped and its name says why.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeSandbox } from "@penguin/core";
import { ManualTicker } from "../src/runtime/clock.js";
import { startServer, type RunningServer } from "../src/start.js";
import { startupNotice } from "../src/process/notice.js";
import { configureProject, modelEntry, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { spawnServer } from "./helpers/child.js";
import { startTestkit } from "@penguin/testkit";

const availability = probeSandbox();
const skipReason = availability.available ? "" : ` (skipped: ${availability.reason ?? "bwrap cannot run here"})`;
const KEY = "sk-test-0123456789abcdef"; // the harness's model entry key
const MISSING_BWRAP = "/nonexistent/penguin-test/bwrap";

let h: Harness | undefined;
let running: RunningServer | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  await running?.close();
  running = undefined;
  for (const c of cleanups.splice(0)) c();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Runs the config-reading task in a fresh session with the default workspace; returns its traces' text. */
async function readConfigTask(harness: Harness): Promise<string> {
  harness.kit.enqueue(
    { toolCalls: [{ name: "exec_command", arguments: { cmd: "cat ../../../../.project_config.toml", description: "read the config" } }] },
    { text: "read it" },
  );
  const c = await harness.admin();
  const sid = await newSession(c, { approvalMode: "allow-all" });
  const sse = await openStream(c, sid);
  await c.post(`/api/sessions/${sid}/tasks`, text("read the project config"));
  await untilRunsEnded(sse, 1);
  await sse.close();
  const traces = join(harness.root, "default_project", "agents", "default_agent", "traces");
  return filesUnder(traces)
    .filter((f) => f.includes(sid))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

describe(`server sessions and the command sandbox${skipReason}`, { timeout: 60_000 }, () => {
  it.skipIf(!availability.available)("sandboxed by default: the project config is not there and the key stays out of the trace", async () => {
    h = await startHarness();
    const c = await h.admin();
    expect((await c.get("/api/me")).body.sandbox).toEqual({ available: true, enabled: true });
    const trace = await readConfigTask(h);
    expect(trace).toContain("No such file or directory");
    expect(trace).not.toContain(KEY);
  });

  it("with bwrap missing: /api/me says unsandboxed, and the same task leaks the key into the trace", async () => {
    h = await startHarness({ app: { sandbox: { bwrapPath: MISSING_BWRAP } } });
    const c = await h.admin();
    expect((await c.get("/api/me")).body.sandbox).toEqual({ available: false, enabled: false });
    const trace = await readConfigTask(h);
    expect(trace).toContain(KEY);
  });

  it("turned off by the operator: available, not enabled", async () => {
    h = await startHarness({ app: { sandbox: { enabled: false } } });
    const c = await h.admin();
    expect((await c.get("/api/me")).body.sandbox).toEqual({ available: availability.available, enabled: false });
    const trace = await readConfigTask(h);
    expect(trace).toContain(KEY);
  });

  it("the startup notice says when commands run unsandboxed, and why", async () => {
    const kit = await startTestkit({ script: [] });
    const root = mkdtempSync(join(tmpdir(), "penguin-server-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }), () => void kit.close());
    configureProject(root, "default_project", modelEntry(kit));
    const lines: string[] = [];
    running = await startServer({ root, port: 0, env: {}, sleep: async () => undefined, out: (l) => lines.push(l), app: { ticker: new ManualTicker(), generateTitles: false, sandbox: { bwrapPath: MISSING_BWRAP } } });
    expect(lines.join("\n")).toContain(`Commands:   UNSANDBOXED: ${MISSING_BWRAP} is not installed (Debian/Ubuntu: apt-get install bubblewrap)`);
  });

  it("the standalone server takes --no-sandbox and --sandbox-network, and its notice says what they did", async () => {
    const notices: string[] = [];
    for (const flags of [["--no-sandbox"], ["--sandbox-network"]]) {
      const root = mkdtempSync(join(tmpdir(), "penguin-server-"));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      const child = spawnServer(["--port", "0", "--root", root, ...flags]);
      try {
        notices.push(await child.line(/Commands:/));
      } finally {
        child.proc.kill("SIGTERM");
        await child.exited;
      }
    }
    expect(notices[0]).toContain("UNSANDBOXED: the sandbox is turned off");
    expect(notices[1]).toContain(availability.available ? "sandboxed with bwrap (network allowed)" : "UNSANDBOXED");
  });

  it("the startup notice names the sandbox and its network when it is on", () => {
    const notice = startupNotice({ url: "http://127.0.0.1:1", root: "/data", password: undefined, passwordFile: "/data/p", web: false, sandbox: { available: true, enabled: true, network: false } });
    expect(notice.some((l) => l.includes("Commands:   sandboxed with bwrap (network off)"))).toBe(true);
  });
});
