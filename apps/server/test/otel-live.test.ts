// Live OpenTelemetry export from the server: given a server started with an OTLP endpoint (an
// in-test collector on 127.0.0.1), when a task ends, then its spans arrive, and they equal the
// tree `penguin otel export` sends for the same session (the projection of its trace). Given the
// server stopped, a second task run by a server without export, and the server started again
// with export, then the catch-up sends the second task's spans only: no span arrives twice.
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit } from "@penguin/testkit";
import { ApiClient } from "./helpers/client.js";
import { spawnServer, StartedServers } from "./helpers/child.js";
import { configureProject, modelEntry } from "./helpers/harness.js";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, loadRecording } from "@penguin/core";
import { exportSpans, sessionSpans } from "@penguin/projections-otel";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded, untilServerEvent } from "./helpers/session.js";
import { dataOf } from "./helpers/sse.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../../../projections/otel/test/otlp-receiver.js";

const started = new StartedServers();
const receivers: OtlpReceiver[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await started.cleanup();
});

/** A span as a tree node: everything but the service. */
const node = (s: ReceivedSpan) => ({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId, name: s.name, start: s.startTimeUnixNano, end: s.endTimeUnixNano, attributes: s.attributes, status: s.status });
const tree = (spans: ReceivedSpan[]) => spans.map(node).sort((a, b) => a.spanId.localeCompare(b.spanId));

async function runTask(h: Harness, sid: string | undefined, prompt: string): Promise<string> {
  const c = await h.admin();
  const id = sid ?? (await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" }));
  const sse = await openStream(c, id);
  expect((await c.post(`/api/sessions/${id}/tasks`, text(prompt))).status).toBe(202);
  await untilRunsEnded(sse, 1);
  await sse.close();
  return id;
}

/** Stops a harness's server and model, keeping its root and workspace for the next one. */
async function stop(h: Harness): Promise<void> {
  await h.server.close();
  await h.kit.close();
  dirs.push(h.root, h.workspace);
}

describe("live OpenTelemetry export", () => {
  it("sends each ended task's spans, equal to the exported tree, and catches up after a restart without repeats", { timeout: 120_000 }, async () => {
    const live = await startOtlpReceiver();
    receivers.push(live);
    const h1 = await startHarness({
      script: [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo hi", description: "echo" } }] }, { text: "done" }],
      app: { otel: { endpoint: live.url } },
    });
    const sid = await runTask(h1, undefined, "first task");
    const firstTask = await live.waitFor(4);
    expect(firstTask.map((s) => s.name).sort()).toEqual(["chat scripted-model", "chat scripted-model", "execute_tool exec_command", "invoke_agent default_agent"]);
    for (const s of firstTask) expect(s.attributes["gen_ai.conversation.id"]).toBe(sid);

    // The same session through the export path (what `penguin otel export` sends).
    const exported = await startOtlpReceiver();
    receivers.push(exported);
    const paths = agentPaths(h1.root, "default_project", "default_agent");
    const spans = sessionSpans(loadRecording({ paths }, sid).events.map((e) => ({ n: e.n, message: e.message })), { agentName: "default_agent" });
    await exportSpans(spans, { endpoint: exported.url });
    expect(tree(await exported.waitFor(spans.length))).toEqual(tree(firstTask));
    await stop(h1);

    // A second task while nothing exports.
    const h2 = await startHarness({ root: h1.root, adminPassword: h1.adminPassword, script: [{ text: "second answer" }] });
    h2.workspace = h1.workspace;
    await runTask(h2, sid, "second task");
    await stop(h2);
    expect(live.spans).toHaveLength(4);

    // Export on again: the catch-up sends the second task (invoke_agent and its chat), nothing of the first.
    const h3 = await startHarness({ root: h1.root, adminPassword: h1.adminPassword, app: { otel: { endpoint: live.url } } });
    const all = await live.waitFor(6);
    await stop(h3);
    expect(live.spans).toHaveLength(6);
    expect(new Set(all.map((s) => s.spanId)).size).toBe(6);
    expect(all.slice(4).map((s) => s.name).sort()).toEqual(["chat scripted-model", "invoke_agent default_agent"]);
  });
});

describe("traceparent on a task request", () => {
  it("makes the caller's span the parent of the task's spans, recorded in the trace", { timeout: 120_000 }, async () => {
    const collector = await startOtlpReceiver();
    receivers.push(collector);
    const h = await startHarness({ script: [{ text: "traced" }, { text: "untraced" }], app: { otel: { endpoint: collector.url } } });
    try {
      const c = await h.admin();
      const sid = await newSession(c, { workspace: h.workspace });
      const sse = await openStream(c, sid);
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const parentId = "00f067aa0ba902b7";
      expect((await c.call("POST", `/api/sessions/${sid}/tasks`, text("hi"), { traceparent: `00-${traceId}-${parentId}-01` })).status).toBe(202);
      await untilRunsEnded(sse, 1);
      await sse.close();
      const spans = await collector.waitFor(2);
      const task = spans.find((s) => s.name.startsWith("invoke_agent"))!;
      expect(task).toMatchObject({ traceId, parentSpanId: parentId });
      for (const s of spans) expect(s.traceId).toBe(traceId);
      const recorded = loadRecording({ paths: agentPaths(h.root, "default_project", "default_agent") }, sid).events.flatMap((e) => (e.message.type === "event_msg" && e.message.payload.type === "trace_context" ? [e.message.payload.traceparent] : []));
      expect(recorded).toEqual([`00-${traceId}-${parentId}-01`]);

      // An invalid header is ignored: the next task is a root span of the session's own trace.
      const sse2 = await openStream(c, sid);
      expect((await c.call("POST", `/api/sessions/${sid}/tasks`, text("again"), { traceparent: "00-zz-bad-01" })).status).toBe(202);
      await untilRunsEnded(sse2, 1);
      await sse2.close();
      const more = await collector.waitFor(4);
      const second = more.slice(2).find((s) => s.name.startsWith("invoke_agent"))!;
      expect(second.parentSpanId).toBeUndefined();
      expect(second.traceId).not.toBe(traceId);
    } finally {
      await h.cleanup();
    }
  });
});

describe("traceparent on a queued follow-up", () => {
  it("a follow-up posted with a traceparent while a task runs gets it when it starts: recorded with the queue and before its task", { timeout: 120_000 }, async () => {
    const collector = await startOtlpReceiver();
    receivers.push(collector);
    const h = await startHarness({ script: [{ toolCalls: [{ name: "write_file", arguments: { file_path: "a.txt", content: "x" } }] }, { text: "first done" }, { text: "follow-up done" }], app: { otel: { endpoint: collector.url } } });
    try {
      const c = await h.admin();
      const sid = await newSession(c, { workspace: h.workspace, approvalMode: "always-ask" });
      const sse = await openStream(c, sid);
      expect((await c.post(`/api/sessions/${sid}/tasks`, text("first"))).status).toBe(202);
      // The first task waits for its approval: the follow-up is queued behind it.
      const asked = dataOf(await untilServerEvent(sse, "approval_request")) as { toolCallId: string };
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      const parentId = "b7ad6b7169203331";
      const traceparent = `00-${traceId}-${parentId}-01`;
      const queued = await c.call("POST", `/api/sessions/${sid}/tasks`, { ...text("later"), queueIfBusy: true }, { traceparent });
      expect(queued.body).toMatchObject({ status: "queued" });
      expect((await c.post(`/api/sessions/${sid}/approvals/${asked.toolCallId}`, { decision: "allow" })).status).toBe(204);
      await untilRunsEnded(sse, 2);
      await sse.close();
      // Each task is exported whole when it ends: the first's 4 spans (invoke_agent, two chats, the tool), then the
      // follow-up's 2 (invoke_agent, chat). Waiting for 4 could return before the follow-up's batch arrived.
      const spans = await collector.waitFor(6);
      const tasks = spans.filter((s) => s.name.startsWith("invoke_agent"));
      expect(tasks).toHaveLength(2);
      // The first task has no traceparent: a root of the session's own trace; the follow-up's is the caller's.
      const [own, followUp] = [tasks.find((s) => s.traceId !== traceId), tasks.find((s) => s.traceId === traceId)];
      expect(own?.parentSpanId).toBeUndefined();
      expect(followUp).toMatchObject({ traceId, parentSpanId: parentId });
      const events = loadRecording({ paths: agentPaths(h.root, "default_project", "default_agent") }, sid).events.map((e) => e.message);
      const queuedRecord = events.find((m) => m.type === "event_msg" && m.payload.type === "followup_queued");
      expect(queuedRecord?.type === "event_msg" && queuedRecord.payload.type === "followup_queued" ? queuedRecord.payload.traceparent : undefined).toBe(traceparent);
      const kinds = events.flatMap((m) => (m.type === "event_msg" && (m.payload.type === "followup_dequeued" || m.payload.type === "trace_context") ? [m.payload.type] : []));
      expect(kinds).toEqual(["followup_dequeued", "trace_context"]);
    } finally {
      await h.cleanup();
    }
  });
});

describe("penguin server --otel-endpoint", () => {
  it("exports a task's spans from the server process", { timeout: 120_000 }, async () => {
    const kit = await startTestkit({ script: [{ text: "hello" }] });
    const collector = await startOtlpReceiver();
    receivers.push(collector);
    try {
      const root = started.tempDir("penguin-otel-");
      const workspace = started.tempDir("penguin-otel-ws-");
      configureProject(root, "default_project", modelEntry(kit));
      const server = started.track(spawnServer(["--root", root, "--port", "0", "--no-open", "--workspace-root", tmpdir(), "--otel-endpoint", collector.url]));
      const c = new ApiClient((u, init) => fetch(u, init), await server.url());
      await c.signIn("admin", readFileSync(join(root, "initial-admin-password"), "utf8").trim());
      const sid = await newSession(c, { workspace });
      const sse = await openStream(c, sid);
      expect((await c.post(`/api/sessions/${sid}/tasks`, text("hi"))).status).toBe(202);
      await untilRunsEnded(sse, 1);
      await sse.close();
      const spans = await collector.waitFor(2);
      expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted-model", "invoke_agent default_agent"]);
      expect(spans.every((s) => s.attributes["gen_ai.conversation.id"] === sid)).toBe(true);
    } finally {
      await kit.close();
    }
  });
});
