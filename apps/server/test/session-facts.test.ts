// Session facts are the trace's: the server keeps no copy of its own. Given an idle session,
// when a person PATCHes its approval mode, thinking level, title and archive flag, then each
// change is one event appended to its trace at once, and the API, the fold (`/state`) and the
// sessions projection agree on every fact; deleting projections.db and restarting gives every
// fact back the same. Given sessions written by the SDK into the same data root (`deny-all`,
// `read-only`), when the server runs a task in them, then it approves exactly as their traces
// say: the deny-all write is denied without a question, the read-only write asks.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, createAgent, readTraceFile, sessionTraceFiles } from "@penguin/core";
import type { OmniMessage } from "@penguin/omnimessage";
import { eventually, startHarness, type Harness } from "./helpers/harness.js";
import type { ApiClient } from "./helpers/client.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf, messagesOf } from "./helpers/sse.js";
import { deleteProjections } from "./helpers/projection-dump.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const LIST = "/api/projects/default_project/agents/default_agent/sessions";

function traceRecords(root: string, sid: string): OmniMessage[] {
  return sessionTraceFiles(agentPaths(root, "default_project", "default_agent"), sid).flatMap((f) => readTraceFile(f.file).messages);
}

/** The session's row in the projections (projections.db, or PostgreSQL's schema), as the sessions projection folded it. */
async function projectedRow(harness: Harness, sid: string): Promise<Record<string, unknown> | undefined> {
  await harness.server.context.projections.refresh();
  return harness.server.context.projections.read((db) =>
    db.selectFrom("sessions").select(["approval_mode", "thinking_level", "title", "title_set", "archived", "sandbox_network"]).where("session_id", "=", sid).executeTakeFirst(),
  );
}

/** Every fact the server shows of the session, from its API, its fold and the projection. */
async function factsOf(c: ApiClient, harness: Harness, sid: string) {
  const view = (await c.get(`/api/sessions/${sid}`)).body;
  const state = (await c.get(`/api/sessions/${sid}/state`)).body;
  const archivedList = ((await c.get(`${LIST}?category=archived`)).body.sessions as { id: string }[]).map((s) => s.id);
  return {
    api: { approvalMode: view.approvalMode, thinkingLevel: view.thinkingLevel, title: view.title, archived: view.archived, listedAsArchived: archivedList.includes(sid) },
    fold: { approvalMode: state.settings.approvalMode, thinkingLevel: state.settings.thinkingLevel },
    projection: await projectedRow(harness, sid),
  };
}

describe("session facts are trace events", { timeout: 120_000 }, () => {
  it("PATCH appends each fact at once; the API, the fold and the projection agree; a rebuilt projections.db gives every fact back", async () => {
    h = await startHarness({ script: [{ text: "noted" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "read-only" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("remember the tide tables"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    // The titler appends its title after the run: wait for it, so only the PATCHes below append.
    await eventually(() => traceRecords(h!.root, sid).some((m) => m.type === "event_msg" && m.payload.type === "session_title"), "the titler's title in the trace");

    const changes: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ approvalMode: "deny-all" }, { type: "settings_changed", approval_mode: "deny-all" }],
      [{ thinkingLevel: "high" }, { type: "settings_changed", thinking_level: "high" }],
      [{ title: "Tide tables" }, { type: "session_title", title: "Tide tables" }],
      [{ archived: true }, { type: "session_archived", archived: true }],
    ];
    for (const [body, event] of changes) {
      const before = traceRecords(h.root, sid).length;
      const answer = await c.patch(`/api/sessions/${sid}`, body);
      expect(answer.status).toBe(200);
      // On disk when the PATCH answers: exactly one record more, the change itself.
      const after = traceRecords(h.root, sid);
      expect(after.length).toBe(before + 1);
      expect(after.at(-1)?.payload).toEqual(event);
    }

    const expected = {
      api: { approvalMode: "deny-all", thinkingLevel: "high", title: "Tide tables", archived: true, listedAsArchived: true },
      fold: { approvalMode: "deny-all", thinkingLevel: "high" },
      projection: { approval_mode: "deny-all", thinking_level: "high", title: "Tide tables", title_set: 1, archived: 1, sandbox_network: 0 },
    };
    expect(await factsOf(c, h, sid)).toEqual(expected);

    // Nothing of it is in facts.db: its sessions table has no column for any of these facts.
    // (Read through the server's own connection, so the check holds on PostgreSQL too.)
    const tables = await h.server.context.stores.facts.query.introspection.getTables();
    // (On PostgreSQL the projections' own `sessions` table is in the database too, in schema penguin_projections.)
    const columns = (tables.find((t) => t.name === "sessions" && t.schema !== "penguin_projections")?.columns ?? []).map((c) => c.name);
    expect(columns).toEqual(["session_id", "project_id", "agent_id", "provider", "model_id", "workspace", "created_at"]);

    // projections.db deleted while the server is down: the restarted server rebuilds it from the traces.
    const target = (await h.server.context.projections.store()).database.file;
    await h.server.close();
    await deleteProjections(h.root, target);
    const kit = h.kit;
    h = await startHarness({ root: h.root, adminPassword: h.adminPassword });
    await kit.close();
    const again = await h.admin();
    expect(await factsOf(again, h, sid)).toEqual(expected);
  });

  it("records who created each session in its trace (web, sdk, a fork's web) and shows it from there after projections.db is rebuilt", async () => {
    h = await startHarness({ script: [{ text: "noted" }] });
    const c = await h.admin();
    const byServer = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, byServer);
    await c.post(`/api/sessions/${byServer}/tasks`, text("a task to fork after"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    const forked = await c.post(`/api/sessions/${byServer}/fork`, {});
    expect(forked.status).toBe(201);
    const fork = forked.body.id as string;
    const sdkSession = await (await createAgent({ root: h.root, env: {} })).createSession({ persist: true, workspaceDir: h.workspace });
    const bySdk = sdkSession.id;
    await sdkSession.dispose();
    const expected = { [byServer]: "web", [fork]: "web", [bySdk]: "sdk" };

    // The fact is the trace's: each session's session_meta names its client.
    const metaClients = Object.fromEntries(Object.keys(expected).map((sid) => [sid, traceRecords(h!.root, sid).find((m) => m.type === "session_meta")?.payload.client]));
    expect(metaClients).toEqual(expected);
    const shown = async (client: ApiClient) => {
      const out: Record<string, unknown> = {};
      for (const sid of Object.keys(expected)) out[sid] = (await client.get(`/api/sessions/${sid}`)).body.client;
      const listed = (await client.get(LIST)).body.sessions as { id: string; client: string }[];
      return { detail: out, list: Object.fromEntries(listed.filter((s) => s.id in expected).map((s) => [s.id, s.client])) };
    };
    await eventually(async () => (await c.get(`/api/sessions/${bySdk}`)).status === 200, "the SDK session to be indexed");
    expect(await shown(c)).toEqual({ detail: expected, list: expected });

    const target = (await h.server.context.projections.store()).database.file;
    await h.server.close();
    await deleteProjections(h.root, target);
    const kit = h.kit;
    h = await startHarness({ root: h.root, adminPassword: h.adminPassword });
    await kit.close();
    const again = await h.admin();
    expect(await shown(again)).toEqual({ detail: expected, list: expected });
  });

  it("runs an SDK session opened by the server with the approval mode its trace records: deny-all denies, read-only asks", async () => {
    const writeCall = (file: string) => ({ name: "write_file", id: `call_${file.replace(/\W/g, "")}`, arguments: { file_path: file, content: "written" } });
    h = await startHarness({ script: [{ toolCalls: [writeCall("denied.txt")] }, { text: "could not" }, { toolCalls: [writeCall("asked.txt")] }, { text: "stopped" }] });
    const root = h.root;
    const workspace = h.workspace;
    const agent = await createAgent({ root, env: {} });
    const created: Record<string, string> = {};
    for (const mode of ["deny-all", "read-only"]) {
      const session = await agent.createSession({ persist: true, approvalMode: mode, workspaceDir: workspace });
      created[mode] = session.id;
      await session.dispose();
    }
    const c = await h.admin();
    const denyAll = created["deny-all"] as string;
    const readOnly = created["read-only"] as string;
    await eventually(async () => (await c.get(`/api/sessions/${denyAll}`)).status === 200 && (await c.get(`/api/sessions/${readOnly}`)).status === 200, "the SDK sessions to be indexed");
    expect((await c.get(`/api/sessions/${denyAll}`)).body.approvalMode).toBe("deny-all");
    expect((await c.get(`/api/sessions/${readOnly}`)).body.approvalMode).toBe("read-only");

    // deny-all: denied by the mode, nobody asked, nothing written.
    const sse = await openStream(c, denyAll);
    expect((await c.post(`/api/sessions/${denyAll}/tasks`, text("write it"))).status).toBe(202);
    await untilRunsEnded(sse, 1);
    await sse.close();
    expect(sse.events.filter((e) => e.event === "server_event" && dataOf(e).type === "approval_request")).toEqual([]);
    expect(messagesOf(sse.events).filter((m) => m.payload?.type === "approval_decision").map((m) => m.payload.decision)).toEqual(["deny"]);
    expect(existsSync(join(workspace, "denied.txt"))).toBe(false);
    const decided = traceRecords(root, denyAll).filter((m) => m.type === "event_msg" && m.payload.type === "approval_decision");
    expect(decided.map((m) => (m.payload as { decision: string }).decision)).toEqual(["deny"]);

    // read-only: the write asks a person.
    const asking = await openStream(c, readOnly);
    expect((await c.post(`/api/sessions/${readOnly}/tasks`, text("write that"))).status).toBe(202);
    const asked = dataOf(await untilServerEvent(asking, "approval_request"));
    expect(asked.toolCall.name).toBe("write_file");
    expect(existsSync(join(workspace, "asked.txt"))).toBe(false);
    expect((await c.post(`/api/sessions/${readOnly}/approvals/${asked.toolCallId}`, { decision: "deny" })).status).toBe(204);
    await untilRunsEnded(asking, 1);
    await asking.close();
    expect(existsSync(join(workspace, "asked.txt"))).toBe(false);
  });
});
