// Row 15: one 30 MB record (a tool output of quote- and escape-heavy text, written by the real
// TraceWriter in a short session) through the server's read paths, in this process, measured
// as row 14 measures a hold: the longest gap between two turns of the event loop (setImmediate
// ticks) while the call runs, i.e. the longest any other user's request would have waited.
// - time-travel state (`GET …/state?at=`) at the session's end, at the record and just before
//   it, as the route answers it: the session's files indexed first (prepareTraceCut, a slice
//   per turn, long lines cut), then the fold from the start (what the timeline's snapshot source
//   answers for a session this short) with the cut reads;
// - the newest history page and the trace page holding the record;
// - beside them, the state at the end read the way it was before the cut (the whole record
//   decoded and answered), to show what the cut saves.
// The baseline is readFileSync of the same file, measured in the same run.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentPaths, createAgent, DEFAULT_LINE_CUT, newSessionId, sessionDate, traceFilePath, TraceRecordIndexes, TraceWriter, type SnapshotSource } from "@penguin/core";
import { assistantText, requestBegin, requestEnd, toolCall, toolCallOutput, userText } from "@penguin/omnimessage";
import { prepareTraceCut, readHistory } from "../../../apps/server/src/services/history.js";
import { traceLines } from "../../../apps/server/src/services/trace-view.js";
import { longestHold } from "../lib/event-loop.js";
import { metric, msSince, type RowResult } from "../lib/stats.js";

/** The longest event-loop hold of `run`, in ms. */
const holdOf = async (run: () => Promise<unknown>): Promise<number> => (await longestHold(run)).longest;

/** A snapshot source with no snapshot for the session: the fold starts at the trace's start, as the timeline's does for a short session. */
const noSnapshot: SnapshotSource = { nearest: async () => ({ totalEvents: 0, snapshot: undefined }) };

export async function rowHugeRecord(runs: number, bytes = 30 * 1024 * 1024): Promise<RowResult> {
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-huge-"));
  try {
    const paths = agentPaths(root, "default_project", "default_agent");
    const sessionId = newSessionId(new Date());
    const date = sessionDate(sessionId);
    const file = traceFilePath(paths, date, sessionId, 1);
    const writer = new TraceWriter({ fileFor: (i) => traceFilePath(paths, date, sessionId, i), index: 1, meta: { session_id: sessionId, provider: "bench", model_id: "bench", model_context_window: 128000, system_prompt: "", agent_state: join(root, "agent_state"), workspace: root } });
    const piece = 'line of "output" \\ tab\t ünï ✓ 终 0123456789\n';
    writer.append(requestBegin());
    writer.append(userText("print a lot"));
    writer.append(toolCall({ name: "exec_command", arguments: JSON.stringify({ cmd: "yes" }), tool_call_id: "call_big1" }, { stopReason: "completed" }));
    writer.append(requestEnd("completed"));
    writer.append(toolCallOutput({ tool_call_id: "call_big1", output: piece.repeat(Math.ceil(bytes / piece.length)), stop_reason: "completed" }));
    writer.append(requestBegin());
    writer.append(assistantText("done", { stopReason: "completed" }));
    writer.append(requestEnd("completed"));
    writer.close();
    const agent = await createAgent({ root, env: {} });

    const samples = { read: [] as number[], end: [] as number[], at: [] as number[], before: [] as number[], history: [] as number[], page: [] as number[], whole: [] as number[] };
    for (let i = 0; i <= runs; i++) {
      const start = process.hrtime.bigint();
      readFileSync(file);
      const read = msSince(start);
      // A fresh index per run: the first request after a server start builds it, the worst case.
      const records = new TraceRecordIndexes({ cut: DEFAULT_LINE_CUT, sliceBytes: 1024 * 1024 });
      const state = (at: number | undefined) => async () => {
        const cut = await prepareTraceCut(records, paths, sessionId);
        const view = await agent.inspectState({ sessionId, snapshots: noSnapshot, cut, ...(at === undefined ? {} : { at }) });
        return JSON.stringify(view);
      };
      const end = await holdOf(state(undefined));
      const at = await holdOf(state(6));
      const before = await holdOf(state(5));
      const history = await holdOf(async () => {
        const cut = await prepareTraceCut(records, paths, sessionId);
        return JSON.stringify(readHistory(paths, sessionId, undefined, { tailLimit: 200 }, cut).page.messages);
      });
      const page = await holdOf(async () => JSON.stringify(await traceLines(records, paths, sessionId, 1, 0, 500)));
      const whole = await holdOf(async () => JSON.stringify(await agent.inspectState({ sessionId, snapshots: noSnapshot })));
      if (i === 0) continue; // warm-up
      samples.read.push(read);
      samples.end.push(end);
      samples.at.push(at);
      samples.before.push(before);
      samples.history.push(history);
      samples.page.push(page);
      samples.whole.push(whole);
    }
    const baseline = { baseline: { name: "readFileSync", samples: samples.read } };
    const goal = "≤ 50 ms";
    return {
      row: 15,
      title: `One ${Math.round(bytes / 2 ** 20)} MB record in a short session: the longest event-loop hold of the server's read paths (a fresh record index each run)`,
      metrics: [
        metric("time-travel state at the end", "ms", "lower", samples.end, { ...baseline, goal }),
        metric("time-travel state at the record", "ms", "lower", samples.at, { ...baseline, goal }),
        metric("time-travel state just before it", "ms", "lower", samples.before, { ...baseline, goal }),
        metric("history: newest page", "ms", "lower", samples.history, { ...baseline, goal }),
        metric("trace browser: the page holding it", "ms", "lower", samples.page, { ...baseline, goal }),
        metric("time-travel state at the end, the record read whole (no cut, as before)", "ms", "lower", samples.whole, baseline),
      ],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
