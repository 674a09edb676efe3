// No request holds the server: a session whose trace holds one 30 MB record (a tool
// output, written by the real TraceWriter before the server starts, so the server indexes it
// like any session found on disk). Time-travel state around and at that record, the history
// page, trace pages, the whole-record route and the download all answer correctly (the cut
// marker with its byte count and position; the whole record byte-identical), while a second
// client pings `/api/version` without pause.
//
// How the hold is measured, and why so: the issue asks what another user sees, so the measure
// is a second client's ping round trip on 127.0.0.1 (the server runs in this process: a request
// that holds its event loop holds the ping's answer). The big requests are made by curl in
// another process, so reading a 30 MB body never runs on this loop; only pings sent after the
// request started count, and a minimum of them must have been answered, so the test cannot
// pass by pinging before or after. A ping fails the test when its round trip reaches 100 ms
// (twice the 50 ms goal) AND this process spent as much CPU time over it: on a shared 2-core
// machine the process is sometimes not scheduled for 100 ms and more, which is no request's
// doing, while a hold on the event loop is CPU this process spends (monitorEventLoopDelay would
// see both alike). Removing the cut (DEFAULT_LINE_CUT in the server's reads) makes the state
// pings wait 200 ms to 45 s, on CPU. A bad `at` is refused with 400 naming the field even when
// the trace file cannot be read at all (it is replaced by a folder), so no read happened first;
// one past the session's end is refused from the record index, with the pings timed too.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, newSessionId, sessionDate, traceFilePath, TraceWriter } from "@penguin/core";
import { assistantText, requestBegin, requestEnd, toolCall, toolCallOutput, userText, type SessionMetaPayload } from "@penguin/omnimessage";
import type { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";

const BIG = 30 * 1024 * 1024;
const execFileAsync = promisify(execFile);

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** A session of 8 records; record 6 (line 6) is a tool output of 30 MB of text with escapes and non-ASCII characters. */
function writeBigSession(root: string): { sessionId: string; file: string; output: string } {
  const paths = agentPaths(root, "default_project", "default_agent");
  const sessionId = newSessionId(new Date(Date.UTC(2026, 6, 18, 2, 0, 0)));
  const meta: SessionMetaPayload = { session_id: sessionId, provider: "testkit", model_id: "scripted-model", model_context_window: 128000, system_prompt: "", agent_state: join(root, "agent_state"), workspace: tmpdir() };
  const file = traceFilePath(paths, sessionDate(sessionId), sessionId, 1);
  const writer = new TraceWriter({ fileFor: (i) => traceFilePath(paths, sessionDate(sessionId), sessionId, i), index: 1, meta });
  const piece = 'line of "output" \\ tab\t ünï ✓ 终 0123456789\n';
  const output = piece.repeat(Math.ceil(BIG / piece.length));
  writer.append(requestBegin());
  writer.append(userText("print a lot"));
  writer.append(toolCall({ name: "exec_command", arguments: JSON.stringify({ cmd: "yes" }), tool_call_id: "call_big1" }, { stopReason: "completed" }));
  writer.append(requestEnd("completed"));
  writer.append(toolCallOutput({ tool_call_id: "call_big1", output, stop_reason: "completed" }));
  writer.append(requestBegin());
  writer.append(assistantText("done", { stopReason: "completed" }));
  writer.append(requestEnd("completed"));
  writer.close();
  return { sessionId, file, output };
}

interface Pinger {
  /** Round trips of the pings sent at or after `since` (performance.now()) and answered: wall and this process's CPU time over each, in ms. */
  since(since: number): { rtt: number; cpu: number }[];
  stop(): Promise<void>;
}

/** A second client pinging `/api/version` one after the other, timing each round trip. */
function startPinging(c: ApiClient): Pinger {
  let running = true;
  const pings: { sent: number; rtt: number; cpu: number }[] = [];
  const loop = (async () => {
    while (running) {
      const sent = performance.now();
      const cpuBefore = process.cpuUsage();
      const res = await c.raw("GET", "/api/version");
      await res.arrayBuffer();
      const cpu = process.cpuUsage(cpuBefore);
      pings.push({ sent, rtt: performance.now() - sent, cpu: (cpu.user + cpu.system) / 1000 });
    }
  })();
  return {
    // Only pings sent once a request started count: one sent earlier may have waited on this
    // test's own synchronous checks of the previous answer, which are not the server's doing.
    since: (since) => pings.filter((p) => p.sent >= since).map(({ rtt, cpu }) => ({ rtt, cpu })),
    async stop() {
      running = false;
      await loop;
    },
  };
}

describe("a 30 MB record", () => {
  it("is cut in state, history and trace pages, whole by its route and the download, and never holds another client's pings", async () => {
    const root = mkdtempSync(join(tmpdir(), "penguin-huge-"));
    const { sessionId, file, output } = writeBigSession(root);
    h = await startHarness({ root });
    const c = await h.admin();
    await h.server.context.projections.refresh();
    const recordBytes = readFileSync(file).toString("utf8").split("\n")[5]!;
    const pinger = startPinging(h.client());
    const outDir = mkdtempSync(join(tmpdir(), "penguin-huge-out-"));
    let fetched = 0;
    const big = async (what: string, path: string): Promise<{ status: number; bytes: Buffer }> => {
      // The big request is made by curl, in another process: reading a 30 MB body here would
      // hold this process's event loop, the server's, and be counted against the server.
      const out = join(outDir, `${++fetched}.body`);
      const answered = execFileAsync("curl", ["-sS", "-o", out, "-w", "%{http_code}", "-H", `cookie: ${c.cookie ?? ""}`, `http://127.0.0.1:${h!.port}${path}`]);
      // Counted from here: starting the child is this test's own synchronous work, not the server's.
      const started = performance.now();
      const { stdout } = await answered;
      // The request is answered: let a few more pings through, so a hold at its very end counts too.
      for (let i = 0; i < 3; i++) await c.raw("GET", "/api/version").then((r) => r.arrayBuffer());
      const rtts = pinger.since(started);
      expect(rtts.length, `pings answered during ${what}`).toBeGreaterThanOrEqual(3);
      const held = rtts.filter((p) => p.rtt >= 100 && p.cpu >= 100);
      expect(held, `pings held 100 ms or more, on this process's CPU, during ${what}`).toEqual([]);
      return { status: Number(stdout), bytes: readFileSync(out) };
    };
    const jsonOf = (r: { bytes: Buffer }) => JSON.parse(r.bytes.toString("utf8"));
    const cutOf = (messages: { payload: { tool_call_id?: string; output?: string; cut?: { truncated: boolean; bytes: number; recordBytes: number; at: string; fields: string[] } } }[]) =>
      messages.find((m) => m.payload.tool_call_id === "call_big1" && m.payload.output !== undefined)?.payload;

    try {
      for (const at of ["", "?at=6", "?at=001:000006", "?at=8", "?at=5"]) {
        const state = await big(`state${at}`, `/api/sessions/${sessionId}/state${at}`);
        expect(state.status).toBe(200);
        const body = jsonOf(state);
        expect(state.bytes.length).toBeLessThan(200_000);
        const payload = cutOf(body.nextContext);
        if (at === "?at=5") {
          expect(body.at, "the record before the output").toMatchObject({ n: 5, position: "001:000005" });
          // The call is still open there: the next context gives it resume's placeholder output, not the record's.
          expect(payload?.cut).toBeUndefined();
          expect(payload?.output?.length ?? 0).toBeLessThan(1000);
          continue;
        }
        expect(payload?.cut).toMatchObject({ truncated: true, at: "001:000006", fields: ["output"], recordBytes: Buffer.byteLength(recordBytes) });
        expect(output.startsWith(payload!.output!)).toBe(true);
        expect(payload!.output!.length).toBeGreaterThan(1000);
        expect(payload!.cut!.bytes).toBeGreaterThan(BIG - 100_000);
      }

      // Past the end: refused from the record index, not by a fold that reads the session whole.
      for (const at of ["99", "001:000099", "002:000001"]) {
        const refused = await big(`state?at=${at}`, `/api/sessions/${sessionId}/state?at=${at}`);
        expect(refused.status, `at=${at}`).toBe(400);
        expect(jsonOf(refused).error.field, `at=${at}`).toBe("at");
        expect(jsonOf(refused).error.message, `at=${at}`).toMatch(/past the|no trace file/);
      }

      const history = await big("history page", `/api/sessions/${sessionId}/messages?tailLimit=50`);
      expect(history.status).toBe(200);
      expect(history.bytes.length).toBeLessThan(200_000);
      expect(cutOf(jsonOf(history).messages)?.cut).toMatchObject({ truncated: true, at: "001:000006" });

      const page = await big("trace page", `/api/sessions/${sessionId}/traces/1`);
      expect(page.status).toBe(200);
      expect(page.bytes.length).toBeLessThan(200_000);
      const lines = jsonOf(page).lines as { line: number; message: never }[];
      expect(lines.map((l) => l.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(cutOf(lines.map((l) => l.message))?.cut).toMatchObject({ truncated: true, at: "001:000006" });

      const whole = await big("the whole record", `/api/sessions/${sessionId}/records/001:000006`);
      expect(whole.status).toBe(200);
      expect(whole.bytes.equals(Buffer.from(recordBytes, "utf8"))).toBe(true);
      expect(JSON.parse(whole.bytes.toString("utf8")).payload.output).toBe(output);

      const download = await big("the download", `/api/projects/default_project/agents/default_agent/traces/${sessionId}/download`);
      expect(download.status).toBe(200);
      expect(download.bytes.equals(readFileSync(file))).toBe(true);
    } finally {
      await pinger.stop();
      rmSync(outDir, { recursive: true, force: true });
    }
    expect((await c.get(`/api/sessions/${sessionId}/records/001:000002`)).status).toBe(200);
    expect((await c.get(`/api/sessions/${sessionId}/records/001:000099`)).status).toBe(404);
  });

  it("refuses a bad at with 400 naming the field before reading the trace", async () => {
    const root = mkdtempSync(join(tmpdir(), "penguin-huge-"));
    const { sessionId, file } = writeBigSession(root);
    h = await startHarness({ root });
    const c = await h.admin();
    // The trace file can no longer be read at all: any read would fail (500) instead of a 400.
    renameSync(file, `${file}.moved`);
    mkdirSync(file);
    try {
      for (const at of ["nope", "-1", "0", "1.5", "001:6", "1:x"]) {
        const res = await c.get(`/api/sessions/${sessionId}/state?at=${encodeURIComponent(at)}`);
        expect(res.status, `at=${at}`).toBe(400);
        expect(res.body.error.field, `at=${at}`).toBe("at");
      }
      for (const at of ["nope", "1:6", "000:000001"]) {
        const res = await c.get(`/api/sessions/${sessionId}/records/${encodeURIComponent(at)}`);
        expect(res.status, `records/${at}`).toBe(400);
        expect(res.body.error.field, `records/${at}`).toBe("at");
      }
    } finally {
      rmSync(file, { recursive: true, force: true });
    }
  });
});
