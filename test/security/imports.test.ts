// Imports are checked like creates: a trace imported through the API names the workspace its
// session will run in (`session_meta.workspace`, mounted read-write in the sandbox) and the
// agent it belongs to (`agent_state`). Each foreign path an attacker can put there (the data
// root, another project's workspace, /etc, a symlink inside a workspace root leading out, a
// relative or `..` path, a second session_meta further down) must be replaced by a fresh
// temporary workspace, said in the response; and a session run afterwards, where the scripted
// model reads `secret.txt` from its working folder, must not see the foreign folder's file. A
// snapshot import carrying a schedule whose workspace lies outside the roots is refused with
// a 400 naming the file and field, and changes nothing. Real server, real files, the testkit
// as the model (the attacker).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths } from "@penguin/core";
import { sessionMeta, userText } from "@penguin/omnimessage";
import { startHarness, type Harness } from "../../apps/server/test/helpers/harness.js";
import { openStream, text, untilRunsEnded } from "../../apps/server/test/helpers/session.js";
import { tarGz } from "../../apps/server/test/helpers/tarball.js";

const A = "/api/projects/default_project/agents/default_agent";
const SECRET = "other-project-secret-5f1c";

let h: Harness | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0)) c();
});

let sidCounter = 0;
function nextSid(): string {
  sidCounter += 1;
  return `session-2026-07-01-10-00-00-${sidCounter.toString(16).padStart(8, "0")}`;
}

function traceOf(sid: string, metas: { workspace: string; agent_state?: string }[]): string {
  const agentState = agentPaths(h!.root, "default_project", "default_agent").agentState;
  const meta = (m: { workspace: string; agent_state?: string }) =>
    sessionMeta({ session_id: sid, provider: "testkit", model_id: "scripted-model", model_context_window: 1000, system_prompt: "sp", agent_state: m.agent_state ?? agentState, workspace: m.workspace });
  const lines = metas.flatMap((m, i) => (i === 0 ? [meta(m), userText("hello")] : [meta(m)]));
  return lines.map((m) => JSON.stringify(m)).join("\n");
}

/** Another project's workspace inside the data root, holding a secret file. */
async function otherProjectWorkspace(harness: Harness): Promise<string> {
  const admin = await harness.admin();
  expect((await admin.post("/api/projects", { projectId: "other_project" })).status).toBe(201);
  const dir = join(agentPaths(harness.root, "other_project", "default_agent").workspacesDir, "tmp-0badc0de");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "secret.txt"), SECRET);
  return dir;
}

function storedMetaWorkspace(harness: Harness, sid: string): string[] {
  const dir = agentPaths(harness.root, "default_project", "default_agent").tracesDir;
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => join(dir, f)).filter((f) => f.includes(sid) && statSync(f).isFile());
  return files.flatMap((f) => readFileSync(f, "utf8").split("\n").filter((l) => l.includes('"session_meta"')).map((l) => JSON.parse(l).payload.workspace as string));
}

async function importAs(harness: Harness, jsonl: string) {
  const c = await harness.admin();
  return c.post(`${A}/traces/import`, { dataBase64: Buffer.from(jsonl).toString("base64") });
}

describe("trace import: every session_meta path is checked against the workspace roots", { timeout: 60_000 }, () => {
  it("replaces the data root, another project's workspace, /etc, a symlink out, relative and '..' paths, and says so", async () => {
    h = await startHarness();
    const foreign = await otherProjectWorkspace(h);
    const links = mkdtempSync(join(tmpdir(), "penguin-links-"));
    cleanups.push(() => rmSync(links, { recursive: true, force: true }));
    const linkOut = join(links, "looks-allowed");
    symlinkSync(foreign, linkOut);
    const cases: { name: string; path: string }[] = [
      { name: "the data root", path: h.root },
      { name: "another project's workspace", path: foreign },
      { name: "/etc", path: "/etc" },
      { name: "a symlink under a workspace root leading into another project", path: linkOut },
      { name: "a relative path", path: "work/tree" },
      { name: "a '..' path", path: `${h.workspace}/../../etc` },
      { name: "a missing folder", path: join(h.workspace, "not-there") },
    ];
    const workspacesDir = agentPaths(h.root, "default_project", "default_agent").workspacesDir;
    for (const { name, path } of cases) {
      const sid = nextSid();
      const res = await importAs(h, traceOf(sid, [{ workspace: path }]));
      expect(res.status, name).toBe(201);
      expect(res.body.replaced, name).toHaveLength(1);
      const [replaced] = res.body.replaced;
      expect(replaced, name).toMatchObject({ field: "session_meta.workspace", line: 1, path });
      expect(replaced.replacement.startsWith(`${workspacesDir}/tmp-`), name).toBe(true);
      expect(existsSync(replaced.replacement), name).toBe(true);
      expect(readdirSync(replaced.replacement), name).toEqual([]);
      expect(storedMetaWorkspace(h, sid), name).toEqual([replaced.replacement]);
      const row = h.server.context.stores.sessions.get(sid);
      expect(row?.workspace, name).toBe(replaced.replacement);
    }
  });

  it("checks a second session_meta further down the file and a foreign agent_state too", async () => {
    h = await startHarness();
    const sid = nextSid();
    const res = await importAs(h, traceOf(sid, [{ workspace: h.workspace }, { workspace: "/etc", agent_state: "/root/other/agents/x/agent_state" }]));
    expect(res.status).toBe(201);
    expect(res.body.replaced.map((r: any) => [r.field, r.line, r.path])).toEqual([
      ["session_meta.workspace", 3, "/etc"],
      ["session_meta.agent_state", 3, "/root/other/agents/x/agent_state"],
    ]);
    const stored = storedMetaWorkspace(h, sid);
    expect(stored[0]).toBe(realpathSync(h.workspace));
    expect(stored[1]).toBe(res.body.replaced[0].replacement);
  });

  it("an allowed workspace is kept, and the line is stored as sent", async () => {
    h = await startHarness();
    const sid = nextSid();
    const res = await importAs(h, traceOf(sid, [{ workspace: realpathSync(h.workspace) }]));
    expect(res.status).toBe(201);
    expect(res.body.replaced).toEqual([]);
    expect(storedMetaWorkspace(h, sid)).toEqual([realpathSync(h.workspace)]);
  });

  it("a session run after importing another project's workspace cannot see that folder's files", async () => {
    h = await startHarness();
    const foreign = await otherProjectWorkspace(h);
    const sid = nextSid();
    const res = await importAs(h, traceOf(sid, [{ workspace: foreign }]));
    expect(res.status).toBe(201);
    h.kit.enqueue({ toolCalls: [{ name: "exec_command", arguments: { cmd: "pwd; cat secret.txt; ls -a", description: "look around" } }] }, { text: "done" });
    const c = await h.admin();
    // The imported trace records no approval mode, so the server would ask for the command
    // (fail closed); the mode is set in the trace so the command runs and meets the boundary.
    expect((await c.patch(`/api/sessions/${sid}`, { approvalMode: "allow-all" })).status).toBe(200);
    const sse = await openStream(c, sid);
    expect((await c.post(`/api/sessions/${sid}/tasks`, text("read the secret"))).status).toBe(202);
    await untilRunsEnded(sse, 1);
    await sse.close();
    const outputs = (await c.get(`/api/sessions/${sid}/messages`)).body.messages.filter((m: any) => m.payload?.type === "tool_call_output").map((m: any) => JSON.stringify(m.payload));
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).not.toContain(SECRET);
    expect(outputs[0]).toContain("No such file");
    expect(outputs[0]).toContain(res.body.replaced[0]?.replacement);
  });
});

describe("snapshot import: schedules it brings are checked like a schedule created through the API", { timeout: 60_000 }, () => {
  it("a schedule whose workspace lies outside the roots is refused with a 400 naming the file and field; nothing changes", async () => {
    h = await startHarness();
    const c = await h.admin();
    const agent = agentPaths(h.root, "default_project", "default_agent");
    const before = readFileSync(join(agent.agentState, "system_config.yaml"), "utf8");
    const config = before.replace(/^version: \d+/m, "version: 99");
    for (const workspace of ["/etc", h.root, "relative/dir"]) {
      const archive = tarGz([
        { path: "agent_state/system_config.yaml", body: config },
        { path: "agent_state/schedule/nightly.toml", body: `prompt = "go"\nstart_at = 2026-07-18T09:00:00\nworkspace = "${workspace}"\n` },
      ]);
      const res = await c.post(`${A}/import`, { dataBase64: archive.toString("base64"), confirm: true });
      expect(res.status, workspace).toBe(400);
      expect(res.body.error.field, workspace).toBe("schedule/nightly.toml: workspace");
      expect(res.body.error.message, workspace).toContain(workspace);
      expect(readFileSync(join(agent.agentState, "system_config.yaml"), "utf8")).toBe(before);
      expect(existsSync(join(agent.scheduleDir, "nightly.toml"))).toBe(false);
    }
    const fine = tarGz([
      { path: "agent_state/system_config.yaml", body: config },
      { path: "agent_state/schedule/nightly.toml", body: `prompt = "go"\nstart_at = 2026-07-18T09:00:00\nworkspace = "${h.workspace}"\n` },
    ]);
    expect((await c.post(`${A}/import`, { dataBase64: fine.toString("base64"), confirm: true })).status).toBe(200);
    expect(existsSync(join(agent.scheduleDir, "nightly.toml"))).toBe(true);
  });
});
