// Fuzzing the trace reader and resume (`parseTraceText` + `replayTrace`, then the real
// `agent.resumeSession`) with damaged copies of real traces. The traces come from real
// sessions against the testkit (tool calls with outputs, thinking, a retried request, a
// reset stream, a user abort, a compaction that rotates files), so the damage lands on the
// shapes resume actually meets. Properties:
// 1. any damage (truncation, NUL runs, flipped bytes, deleted lines) neither
//    throws nor yields a context that breaks pairing: in history + carry-over, as the next
//    request sends them, every tool_call is answered exactly once before the next turn;
// 2. truncation anywhere and NUL padding anywhere lose no committed turn (trace-oracle.ts,
//    an independent reading) and replace no recorded tool output with a placeholder;
// 3. resume through real files either succeeds (with the pairing intact) or fails with one of
//    the SDK's own errors naming the problem — never a raw TypeError or SyntaxError.
//
// Planted bugs (PENGUIN_FUZZ_PLANT), to show each property can fail: replay-no-placeholder
// (calls without an output get none), replay-drop-last-turn (the last committed message is
// lost), reader-throws (the reader parses lines without guarding against bad JSON).
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import type { OmniMessage } from "@penguin/omnimessage";
import { allow, collect, startHarness, type Harness } from "../../../packages/core/test/helpers/harness.js";
import { createAgent } from "../../../packages/core/src/agent.js";
import { PenguinError } from "../../../packages/core/src/errors.js";
import { ConfigError } from "../../../packages/core/src/state/config-error.js";
import { parseTraceText, sessionTraceFiles } from "../../../packages/core/src/trace/reader.js";
import { replayTrace } from "../../../packages/core/src/trace/replay.js";
import { pairingProblems } from "./pairing-invariant.js";
import { committedTurns, lostTurns } from "./trace-oracle.js";

vi.mock("../../../packages/core/src/trace/replay.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../packages/core/src/trace/replay.js")>();
  const plant = process.env.PENGUIN_FUZZ_PLANT;
  if (plant !== "replay-no-placeholder" && plant !== "replay-drop-last-turn") return real;
  return {
    ...real,
    replayTrace: (messages: Parameters<typeof real.replayTrace>[0]) => {
      const r = real.replayTrace(messages);
      if (plant === "replay-drop-last-turn") return { ...r, history: r.history.slice(0, -1) };
      const placeholder = (m: OmniMessage) => m.type === "model_msg" && m.payload.type === "tool_call_output" && m.payload.output.startsWith("[interrupted:");
      return { ...r, carryOver: r.carryOver.filter((m) => !placeholder(m)), history: r.history.filter((m) => !placeholder(m)) };
    },
  };
});

vi.mock("../../../packages/core/src/trace/reader.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../packages/core/src/trace/reader.js")>();
  if (process.env.PENGUIN_FUZZ_PLANT !== "reader-throws") return real;
  const parseTraceText = (text: string) => {
    for (const line of text.split("\n")) if (line.trim() !== "") JSON.parse(line);
    return real.parseTraceText(text);
  };
  return { ...real, parseTraceText, readTraceFile: (file: string) => parseTraceText(readFileSync(file, "utf8")) };
});

const SMALL = { input: 400, output: 10 };
const BIG = { input: 7000, output: 10 };
const LONG = "x".repeat(3000);

interface Recorded {
  h: Harness;
  sessionId: string;
  /** Text of each trace file of the session, lowest index first. */
  files: { path: string; text: string }[];
}

/** A session with tool calls, thinking, a retry, a reset stream and a user abort. */
async function toolSession(): Promise<Recorded> {
  const h = await startHarness({
    script: [
      { thinking: "Plan: look around first.", text: "Looking.", toolCalls: [{ name: "exec_command", arguments: { cmd: "echo one", description: "one" } }, { name: "read_file", arguments: { file_path: "notes.txt" } }], usage: SMALL },
      { text: "First done.", usage: SMALL },
      { fault: { kind: "http", status: 500 } },
      { toolCalls: [{ name: "exec_command", arguments: { cmd: `printf '${LONG}'`, description: "long output" } }], usage: SMALL },
      { fault: { kind: "reset", afterEvents: 2 } },
      { text: "Second done.", usage: SMALL },
      { text: "A slow answer that the user interrupts half way through.", chunkSize: 2, delayMs: 20 },
      { text: "Fine, short answer.", usage: SMALL },
    ],
  });
  writeFileSync(`${h.workspace}/notes.txt`, "notes\n");
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  await collect(session.run("first task", { approve: allow }));
  await collect(session.run("second task", { approve: allow }));
  const controller = new AbortController();
  let seen = 0;
  await collect(session.run("third task", { approve: allow, signal: controller.signal }), (m) => {
    if (m.type === "model_msg" && m.payload.type === "partial_text" && ++seen === 3) controller.abort();
  });
  await collect(session.run("fourth task", { approve: allow }));
  await session.dispose();
  return record(h, session.id);
}

/** A session that compacts twice, so it spans three files. */
async function compactingSession(): Promise<Recorded> {
  const summary = (text: string) => ({ text: `[summary]\n${text}\n[/summary]`, usage: SMALL });
  const h = await startHarness({
    entry: { context_window: 8192 },
    script: [
      { toolCalls: [{ name: "write_file", arguments: { file_path: "notes.md", content: "step one\n" } }], usage: SMALL },
      { text: "Wrote notes.md.", usage: BIG },
      summary("Goal: keep notes."),
      { toolCalls: [{ name: "exec_command", arguments: { cmd: "cat notes.md", description: "read back" } }], usage: BIG },
      summary("Goal: keep notes. Read back."),
      { toolCalls: [{ name: "read_file", arguments: { file_path: "notes.md" } }], usage: SMALL },
      { text: "All done.", usage: SMALL },
    ],
  });
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  await collect(session.run("start notes", { approve: allow }));
  await collect(session.run("read them back", { approve: allow }));
  await session.dispose();
  return record(h, session.id);
}

function record(h: Harness, sessionId: string): Recorded {
  const files = sessionTraceFiles(h.agent.paths, sessionId).map((f) => ({ path: f.file, text: readFileSync(f.file, "utf8") }));
  return { h, sessionId, files };
}

type Damage =
  | { kind: "truncate"; at: number }
  | { kind: "nul"; at: number; length: number }
  | { kind: "flip"; at: number; char: string }
  | { kind: "delete-line"; line: number }
  | { kind: "duplicate-line"; line: number };

const nulDamage = fc.record({ kind: fc.constant("nul" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) });
const truncation = fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() });
const anyDamage: fc.Arbitrary<Damage> = fc.oneof(
  truncation,
  nulDamage,
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), char: fc.constantFrom("\0", "\n", "{", "}", '"', ",", "x", "\\", "é") }),
  fc.record({ kind: fc.constant("delete-line" as const), line: fc.nat() }),
);
const duplication = fc.record({ kind: fc.constant("duplicate-line" as const), line: fc.nat() });

function applyDamage(text: string, steps: Damage[]): string {
  let t = text;
  for (const d of steps) {
    switch (d.kind) {
      case "truncate":
        t = t.slice(0, d.at % (t.length + 1));
        break;
      case "nul": {
        const at = d.at % (t.length + 1);
        t = t.slice(0, at) + "\0".repeat(d.length) + t.slice(at);
        break;
      }
      case "flip": {
        if (t.length === 0) break;
        const at = d.at % t.length;
        t = t.slice(0, at) + d.char + t.slice(at + 1);
        break;
      }
      case "delete-line":
      case "duplicate-line": {
        const lines = t.split("\n");
        const i = d.line % lines.length;
        if (d.kind === "delete-line") lines.splice(i, 1);
        else lines.splice(i, 0, lines[i]!);
        t = lines.join("\n");
        break;
      }
    }
  }
  return t;
}

/** What the next request would send after resuming from this text (a closed context starts empty). */
function nextContext(text: string): { history: OmniMessage[]; carryOver: OmniMessage[] } {
  const r = replayTrace(parseTraceText(text).messages);
  return { history: r.contextClosed ? [] : r.history, carryOver: r.carryOver };
}

let sessions: Recorded[] = [];
let bases: string[] = [];

beforeAll(async () => {
  sessions = [await toolSession(), await compactingSession()];
  bases = sessions.flatMap((s) => s.files.map((f) => f.text));
  // The raw material is what it should be: both sessions resumable, the second rotated twice.
  expect(sessions[1]!.files).toHaveLength(3);
}, 60_000);

afterAll(async () => {
  for (const s of sessions) await s.h.cleanup();
});

describe("trace reader and resume (fuzz)", () => {
  it("any damage: never throws, and the next request's context keeps the pairing", () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(anyDamage, { minLength: 1, maxLength: 5 }), (pick, steps) => {
        const text = applyDamage(bases[pick % bases.length]!, steps);
        const { history, carryOver } = nextContext(text);
        expect(pairingProblems([...history, ...carryOver])).toEqual([]);
      }),
      { numRuns: 400, seed: 8080 },
    );
  });

  it("truncation and NUL padding anywhere lose no committed turn", () => {
    fc.assert(
      fc.property(fc.nat(), truncation, fc.array(nulDamage, { maxLength: 4 }), (pick, cut, nuls) => {
        const base = bases[pick % bases.length]!;
        const truncated = applyDamage(base, [cut]);
        const committed = committedTurns(parseTraceText(truncated).messages);
        const { history, carryOver } = nextContext(applyDamage(truncated, nuls));
        expect(lostTurns(committed, history, carryOver)).toEqual([]);
        expect(pairingProblems([...history, ...carryOver])).toEqual([]);
      }),
      { numRuns: 400, seed: 9090 },
    );
  });

  // Found by this property (now fixed): replay kept both copies of a duplicated tool_call
  // line, so the next request named the same call id twice and every provider rejects that
  // for good. Duplicated lines are not damage the writer causes itself (copy tools and sync
  // conflicts do), so this is kept apart from the properties above.
  it("a duplicated record does not break the pairing (replay ignores a repeated tool_call id)", () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(duplication, { minLength: 1, maxLength: 3 }), (pick, steps) => {
        const { history, carryOver } = nextContext(applyDamage(bases[pick % bases.length]!, steps));
        expect(pairingProblems([...history, ...carryOver])).toEqual([]);
      }),
      { numRuns: 200, seed: 1111 },
    );
  });

  it("resume through real files succeeds with the pairing intact, or fails with the SDK's own error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(anyDamage, { minLength: 1, maxLength: 4 }), async (pick, steps) => {
        const s = sessions[pick % sessions.length]!;
        const last = s.files.at(-1)!;
        writeFileSync(last.path, applyDamage(last.text, steps));
        const agent = await createAgent({ root: s.h.root, env: {} });
        let session;
        try {
          session = await agent.resumeSession({ sessionId: s.sessionId });
        } catch (error) {
          expect(error instanceof PenguinError || error instanceof ConfigError, `raw error: ${String(error)}`).toBe(true);
          expect(String(error)).toMatch(/\S/);
          return;
        }
        try {
          expect(pairingProblems([...session.history(), ...session.carryOver()])).toEqual([]);
        } finally {
          await session.dispose();
        }
      }),
      { numRuns: 40, seed: 1010 },
    );
    for (const s of sessions) writeFileSync(s.files.at(-1)!.path, s.files.at(-1)!.text);
  });
});
