// History pages read from the end of the trace (services/history.ts): given a session spread
// over three trace files with garbage lines, NUL padding and a torn tail, when every tail and
// every older page is asked for (every limit, every `before`, with and without the stream's
// last record as the bound), then each page is exactly what paging the whole read trace gives:
// the same messages, position and hasMore. Real files in a temp dir; the oracle reads them whole.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentPaths, newSessionId, readTraceFile, sessionDate, sessionTraceFiles, traceFilePath, type AgentPaths } from "@penguin/core";
import { assistantText, requestBegin, requestEnd, sessionMeta, userText, type OmniMessage } from "@penguin/omnimessage";
import { lastTracePosition, readHistory, readHistoryPage, type HistoryPage, type HistoryQuery, type TracePosition } from "../src/services/history.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "penguin-history-pages-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(paths: AgentPaths, sessionId: string, index: number, lines: string[], tail = ""): void {
  const file = traceFilePath(paths, sessionDate(sessionId), sessionId, index);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lines.join("\n") + "\n" + tail);
}

const line = (m: OmniMessage): string => JSON.stringify(m);
const turn = (n: number): string[] => [requestBegin(), userText(`ask ${n}`), assistantText(`answer ${n}`), requestEnd("completed")].map(line);

/**
 * The oracle: every record of every file read whole, then paged as the route answered before
 * pages were read from the end. One answer differs on purpose: a page before the first record
 * is empty and its position is the `before` asked for (it was the first record's, which the
 * page does not hold).
 */
function oraclePage(paths: AgentPaths, sessionId: string, upTo: { file: number; line: number } | undefined, query: HistoryQuery): HistoryPage {
  const trace: { position: TracePosition; message: OmniMessage }[] = [];
  for (const f of sessionTraceFiles(paths, sessionId)) {
    const read = readTraceFile(f.file);
    read.messages.forEach((message, i) => {
      const position = { fileIndex: f.index, line: read.lines[i]! };
      if (upTo === undefined || f.index < upTo.file || (f.index === upTo.file && position.line <= upTo.line)) trace.push({ position, message });
    });
  }
  const at = (p: TracePosition) => trace.findIndex((e) => e.position.fileIndex > p.fileIndex || (e.position.fileIndex === p.fileIndex && e.position.line >= p.line));
  if (query.before !== undefined) {
    let end = at(query.before);
    if (end < 0) end = trace.length;
    const start = Math.max(0, end - (query.limit ?? 100));
    return { messages: trace.slice(start, end).map((e) => e.message), tracePosition: start < end ? trace[start]!.position : query.before, hasMore: start > 0 };
  }
  const start = Math.max(0, trace.length - (query.tailLimit ?? 5000));
  return { messages: trace.slice(start).map((e) => e.message), tracePosition: trace[start]?.position ?? null, hasMore: start > 0 };
}

describe("history pages from the end of the trace", () => {
  it("given three damaged trace files, then every tail and every older page equals paging the whole read trace", () => {
    const paths = agentPaths(root, "default_project", "default_agent");
    const sessionId = newSessionId(new Date(Date.UTC(2026, 11, 1, 9, 0, 0)));
    const meta = line(sessionMeta({ session_id: sessionId, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" }));
    write(paths, sessionId, 1, [meta, ...turn(1), "not json", ...turn(2), "\0\0" + line(userText("padded")), ...turn(3)]);
    write(paths, sessionId, 2, [meta, "{garbage", "{garbage", ...turn(4), ...turn(5)]);
    write(paths, sessionId, 3, [meta, ...turn(6), "", ...turn(7), "{x", "{x"], line(userText("torn")).slice(0, -4));

    const positions: TracePosition[] = [];
    for (const f of sessionTraceFiles(paths, sessionId)) for (let l = 0; l <= 30; l++) positions.push({ fileIndex: f.index, line: l });
    positions.push({ fileIndex: 4, line: 1 });
    const bounds = [undefined, { file: 3, line: 5 }, { file: 2, line: 6 }, { file: 1, line: 40 }];
    let pages = 0;
    for (const upTo of bounds) {
      for (const tailLimit of [1, 2, 3, 5, 8, 13, 40, 5000]) {
        expect(readHistoryPage(paths, sessionId, upTo, { tailLimit }), `tail ${tailLimit} up to ${JSON.stringify(upTo)}`).toEqual(oraclePage(paths, sessionId, upTo, { tailLimit }));
        pages++;
      }
      for (const before of positions) {
        for (const limit of [1, 3, 7, 100]) {
          expect(readHistoryPage(paths, sessionId, upTo, { before, limit }), `before ${before.fileIndex}:${before.line} limit ${limit} up to ${JSON.stringify(upTo)}`).toEqual(oraclePage(paths, sessionId, upTo, { before, limit }));
          pages++;
        }
      }
    }
    expect(pages).toBeGreaterThan(1000);
    const whole = oraclePage(paths, sessionId, undefined, { tailLimit: 5000 });
    expect(whole.messages.length).toBeGreaterThan(25);
    const last = readTraceFile(sessionTraceFiles(paths, sessionId).at(-1)!.file).lines.at(-1)!;
    expect(lastTracePosition(paths, sessionId)).toEqual({ fileIndex: 3, line: last });
    // The route's cursor without a loaded session: from the tail page itself, or read for an older one.
    for (const query of [{ tailLimit: 1 }, { tailLimit: 40 }, { before: { fileIndex: 2, line: 4 }, limit: 3 }]) expect(readHistory(paths, sessionId, undefined, query).newest()).toEqual({ fileIndex: 3, line: last });
  });

  it("given a session without trace files, then the tail is empty with no position and nothing more", () => {
    const paths = agentPaths(root, "default_project", "default_agent");
    const sessionId = newSessionId(new Date(Date.UTC(2026, 11, 1, 9, 0, 0)));
    expect(readHistoryPage(paths, sessionId, undefined, { tailLimit: 10 })).toEqual({ messages: [], tracePosition: null, hasMore: false });
    expect(lastTracePosition(paths, sessionId)).toBeUndefined();
  });
});
