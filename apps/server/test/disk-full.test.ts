// A full disk under the server: the agent's traces folder is a tiny tmpfs mounted for the
// test (root can mount one; where mounting is not permitted the suite is skipped and its name
// says why). Creating a session when the trace cannot be written answers 507 `no_space` naming
// the trace file and "no space left" (never a 500 `internal`) and leaves no trace file; a task
// on a session whose next record does not fit ends with that message on its stream, and the
// records written before stay whole in the trace.
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, parseTraceText } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";
import { dataOf } from "./helpers/sse.js";
import { skippedForTmpfs, tmpfsMountRefusal } from "./helpers/tmpfs.js";

const cannotMount = tmpfsMountRefusal();
const suffix = skippedForTmpfs(cannotMount);

let h: Harness | undefined;
let mounted: string | undefined;
afterEach(async () => {
  if (mounted !== undefined) execFileSync("umount", ["-l", mounted]);
  mounted = undefined;
  await h?.cleanup();
  h = undefined;
});

/** Mounts a 256 KB tmpfs as the default agent's traces folder. */
function mountTraces(harness: Harness): string {
  const traces = agentPaths(harness.root, "default_project", "default_agent").tracesDir;
  mkdirSync(traces, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", traces]);
  mounted = traces;
  return traces;
}

function fill(dir: string): string {
  const filler = join(dir, "filler");
  const fd = openSync(filler, "a");
  const block = Buffer.alloc(4096, 0x61);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return filler;
}

function traceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => join(dir, f)).filter((f) => f.endsWith(".jsonl") && statSync(f).isFile());
}

describe(`the server on a full disk${suffix}`, { timeout: 60_000 }, () => {
  it.skipIf(cannotMount !== undefined)("a session create answers 507 naming the trace file and 'no space left', and leaves no trace file", async () => {
    h = await startHarness();
    const traces = mountTraces(h);
    fill(traces);
    const c = await h.admin();
    const res = await c.post("/api/projects/default_project/agents/default_agent/sessions", {});
    expect(res.status).toBe(507);
    expect(res.body.error.code).toBe("no_space");
    expect(res.body.error.message).toContain("no space left");
    expect(res.body.error.message).toContain(traces);
    expect(traceFiles(traces)).toEqual([]);
  });

  it.skipIf(cannotMount !== undefined)("a trace import answers 507 naming the file and leaves neither the file nor its temporary workspace", async () => {
    h = await startHarness();
    const traces = mountTraces(h);
    fill(traces);
    const c = await h.admin();
    const sid = "session-2026-07-01-10-00-00-0d15cf00";
    const meta = { type: "session_meta", timestamp: "2026-07-01T10:00:00.000Z", payload: { session_id: sid, provider: "testkit", model_id: "scripted-model", model_context_window: 1000, system_prompt: "sp", agent_state: "/x", workspace: "/etc" } };
    const jsonl = [JSON.stringify(meta), ...Array.from({ length: 200 }, (_, i) => JSON.stringify({ type: "model_msg", timestamp: "2026-07-01T10:00:00.000Z", payload: { type: "text", role: "user", text: `line ${i} ${"q".repeat(1000)}` } }))].join("\n");
    const workspaces = agentPaths(h.root, "default_project", "default_agent").workspacesDir;
    mkdirSync(workspaces, { recursive: true });
    const before = readdirSync(workspaces).length;
    const res = await c.post("/api/projects/default_project/agents/default_agent/traces/import", { dataBase64: Buffer.from(jsonl).toString("base64") });
    expect(res.status).toBe(507);
    expect(res.body.error.message).toContain("no space left");
    expect(res.body.error.message).toContain(sid);
    expect(traceFiles(traces)).toEqual([]);
    expect(readdirSync(workspaces).length).toBe(before);
    expect(h.server.context.stores.sessions.get(sid)).toBeUndefined();
  });

  it.skipIf(cannotMount !== undefined)("a task whose records no longer fit ends with that message, and the records before stay whole", async () => {
    h = await startHarness();
    const traces = mountTraces(h);
    h.kit.enqueue({ text: "first answer" });
    const c = await h.admin();
    const sid = await newSession(c);
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("first task"));
    await untilRunsEnded(sse, 1);
    const [file] = traceFiles(traces);
    const before = readFileSync(file!, "utf8");
    fill(traces);
    h.kit.enqueue({ text: `second answer ${"y".repeat(20_000)}` });
    await c.post(`/api/sessions/${sid}/tasks`, text(`second task ${"z".repeat(20_000)}`));
    await untilRunsEnded(sse, 2);
    const events = sse.events.filter((e) => e.event === "server_event").map((e) => dataOf(e));
    await sse.close();
    const problems = JSON.stringify(events.filter((e) => e.type === "task_error" || e.type === "task_failed" || String(e.message ?? "").length > 0));
    expect(problems).toContain("no space left");
    expect(problems).toContain(file);
    const after = readFileSync(file!, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(parseTraceText(after).skipped).toEqual([]);
  });
});
