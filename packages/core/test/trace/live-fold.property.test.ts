// The live state equals the fold of the trace on disk, after every event (property test).
//
// Given a random scripted session (answers, tool calls that read, write, fail or run a
// command, denials, HTTP 500s and reset streams that force retries, big usage that forces a
// compaction, summaries, user aborts, steering queued and recalled, manual compactions),
// driven through the real engine against the testkit, when any message reaches the host (and
// whenever the host is asked for an approval), then what the running session reports (turns,
// usage, last request, queued steering, the pending approval) equals `stateAt` folded with
// `evolve` from the trace files on disk at that moment; whenever a task ends, the model
// context the session will send next (history and carry-over) equals the fold's; after every
// committed request, the history of the session's live fold equals the fold's on disk; and the
// model request right after a committed one (the next turn, or the compaction request) starts
// with exactly what the committed request sent, followed by its answer, as the model server
// received both.
//
// The engine reads its state from the session's live fold (every record folded with evolve as
// it is written), so the live and on-disk folds agree by construction unless the writer and
// the fold disagree on the records. The model adapter keeps no history: each request sends
// the fold's history plus its input, so the prefix check on the wire is what keeps the fold's
// commit rule equal to what the model was really sent and answered. Because the engine reads the fold, a rule
// missing from evolve would be missing from the live state as well, so the rules are also
// checked against oracles that do not fold: the accounting (below), the steering as the host
// itself knows it (`HostSteering`: a run that ends without an abort has delivered every text
// the host queued and did not take back, a taken-back text and a text of an earlier run are
// never delivered), no approval pending once a run has ended, and a tool call cut short by the
// user's abort answered as aborted by the user. The session's accounting (turns, usage,
// last request) is also checked, once each stream has been read to its end, against what the
// stream alone says (`StreamAccounting`: the sum of the requests' usage, the commits since the
// last completed compaction), without evolve. It fails when a rule is missing: set
// PENGUIN_REDUCER_PLANT to `skip:<event type>` (e.g. `skip:token_usage`,
// `skip:steering_recalled`, `skip:request_end`) and the reducer ignores that event, as if its
// rule were deleted; the test must then fail.
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addTokens, extractMarker, startsWithMarker, zeroTokens, type OmniMessage, type TokenCounts } from "@penguin/omnimessage";
import type { NormalizedMessage, RecordedRequest, ScriptStep, ScriptedTurn } from "@penguin/testkit";
import { carryOverOf, INTERRUPTED_BY_EXIT, SessionFolds, type SessionState } from "@penguin/trace";
import { startHarness, type Harness } from "../helpers/harness.js";
import { sessionTraceFiles } from "../../src/trace/reader.js";
import type { Session } from "../../src/session.js";

vi.mock("../../../trace/src/evolve.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../trace/src/evolve.js")>();
  const plant = process.env.PENGUIN_REDUCER_PLANT ?? "";
  if (!plant.startsWith("skip:")) return real;
  const skipped = plant.slice("skip:".length);
  return {
    ...real,
    evolve: (state: SessionState, m: OmniMessage) => (m.type === "event_msg" && m.payload.type === skipped ? state : real.evolve(state, m)),
  };
});

const RUNS = Number(process.env.PENGUIN_PROPERTY_RUNS ?? 200);
const SEED = Number(process.env.PENGUIN_PROPERTY_SEED ?? 1313);
const SMALL = { input: 300, output: 10 };
const BIG = { input: 7000, output: 10 };

type Step =
  | { kind: "text"; big: boolean }
  | { kind: "tools"; calls: ("read" | "write" | "missing" | "exec")[] }
  | { kind: "http500" }
  | { kind: "reset" }
  | { kind: "summary" };

interface RunPlan {
  abortAfter: number | null;
  steerAt: number | null;
  recallOne: boolean;
  denials: boolean[];
  compactAfter: boolean;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("text" as const), big: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("tools" as const), calls: fc.array(fc.constantFrom("read" as const, "write" as const, "missing" as const, "exec" as const), { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "http500" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "reset" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "summary" as const }) },
);
const runArb: fc.Arbitrary<RunPlan> = fc.record({
  abortAfter: fc.option(fc.integer({ min: 1, max: 40 }), { freq: 3 }),
  steerAt: fc.option(fc.integer({ min: 1, max: 25 }), { freq: 2 }),
  recallOne: fc.boolean(),
  denials: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
  compactAfter: fc.boolean(),
});
const sessionArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }), runs: fc.array(runArb, { minLength: 1, maxLength: 3 }) });

function turnOf(step: Step, n: number): ScriptedTurn {
  switch (step.kind) {
    case "text":
      return { text: `answer ${n}`, usage: step.big ? BIG : SMALL };
    case "tools":
      return {
        usage: SMALL,
        toolCalls: step.calls.map((c, i) =>
          c === "read"
            ? { name: "read_file", arguments: { file_path: "notes.txt" } }
            : c === "write"
              ? { name: "write_file", arguments: { file_path: `out-${n}-${i}.txt`, content: "x\n" } }
              : c === "missing"
                ? { name: "read_file", arguments: { file_path: `missing-${n}.txt` } }
                : { name: "exec_command", arguments: { cmd: `echo ran-${n}`, description: "echo" } },
        ),
      };
    case "http500":
      return { fault: { kind: "http", status: 500 } };
    case "reset":
      return { fault: { kind: "reset", afterEvents: 2 } };
    case "summary":
      return { text: `[summary]\nsummary ${n}\n[/summary]`, usage: SMALL };
  }
}

/** What a message means to the model, without the envelope's time. */
const content = (ms: readonly OmniMessage[]) => ms.map((m) => (m.type === "model_msg" ? m.payload : m.type));

let h: Harness;
let plan: Step[] = [];
let served = 0;
/** The session under test, and its previous request with the size of the fold's history when it was sent. */
let current: Session | undefined;
let previous: { request: RecordedRequest; historySize: number } | undefined;
/** Requests that did not continue the context of the committed request before them. */
let prefixMismatches: unknown[] = [];
let prefixChecks = 0;
/** The committed request's messages, then its answer (the first message after them is the assistant's). */
function continues(previous: RecordedRequest, next: RecordedRequest): boolean {
  const n = previous.messages.length;
  const same = (a: NormalizedMessage, b: NormalizedMessage) => JSON.stringify(a) === JSON.stringify(b);
  return next.messages.length > n && previous.messages.every((m, i) => same(m, next.messages[i]!)) && next.messages[n]!.role === "assistant";
}
// Every model request pulls the next planned step; when the plan is spent the model answers plainly.
// Only a commit grows the fold's history, and only the request before this one can have
// committed since that one was sent: a history grown since then means it did.
const puller: ScriptStep = (request) => {
  const history = current?.state.history.size;
  if (previous !== undefined && history !== undefined && history > previous.historySize) {
    prefixChecks += 1;
    const before = previous.request;
    if (!continues(before, request)) prefixMismatches.push({ committed: before.index, next: request.index, sent: before.messages, then: request.messages });
  }
  previous = history === undefined ? undefined : { request, historySize: history };
  served += 1;
  const step = plan.shift();
  return step === undefined ? { text: "done", usage: SMALL } : turnOf(step, served);
};

/** The accounting as the host-visible stream tells it, without evolve. */
class StreamAccounting {
  turns = 0;
  usage: TokenCounts = zeroTokens();
  lastRequest: TokenCounts | undefined = undefined;
  #inCompaction = false;

  see(m: OmniMessage): void {
    if (m.type !== "event_msg" || m.origin !== undefined) return;
    const e = m.payload;
    if (e.type === "compaction_begin") this.#inCompaction = true;
    if (e.type === "compaction_end") {
      this.#inCompaction = false;
      if (e.status === "completed") {
        this.turns = 0;
        this.lastRequest = undefined;
      }
    }
    if (e.type === "token_usage") {
      this.usage = addTokens(this.usage, e.request);
      if (!this.#inCompaction) {
        this.turns += 1;
        this.lastRequest = e.request;
      }
    }
  }
}

/**
 * Steering as the host knows it, without evolve: the texts it queued (each run's are its own)
 * and took back, the `[user_steering]` texts the stream delivered, and the items the engine
 * dropped at a run's end (its `steering_recalled` records the host did not ask for).
 */
class HostSteering {
  readonly #queued = new Map<string, { id: string; run: number }>();
  readonly #takenBack = new Set<string>();
  readonly #droppedIds = new Set<string>();
  readonly #delivered: { run: number; parts: string[] }[] = [];
  readonly #recallAsked = new Set<string>();

  queued(run: number, text: string, id: string | undefined): void {
    if (id !== undefined) this.#queued.set(text, { id, run });
  }
  recall(id: string): void {
    this.#recallAsked.add(id);
  }
  tookBack(text: string | undefined): void {
    if (text !== undefined) this.#takenBack.add(text);
  }
  /** A record of the trace (raw, not folded): a `steering_recalled` the host did not ask for is a drop. */
  recorded(m: OmniMessage): void {
    if (m.type === "event_msg" && m.payload.type === "steering_recalled" && !this.#recallAsked.has(m.payload.steering_id)) this.#droppedIds.add(m.payload.steering_id);
  }
  streamed(run: number, m: OmniMessage): void {
    if (m.type !== "model_msg" || m.origin !== undefined || m.payload.type !== "text" || m.payload.sender !== undefined || !startsWithMarker(m.payload.text, "user_steering")) return;
    this.#delivered.push({ run, parts: (extractMarker(m.payload.text, "user_steering") ?? "").split("\n\n") });
  }
  /** What the run broke of the steering rules, given whether it ended with an abort. */
  problems(run: number, aborted: boolean): unknown[] {
    const out: unknown[] = [];
    const delivered = this.#delivered.filter((d) => d.run === run).flatMap((d) => d.parts);
    for (const part of delivered) {
      const q = this.#queued.get(part);
      if (q === undefined || q.run !== run) out.push({ run, deliveredButNotQueuedInThisRun: part });
      if (this.#takenBack.has(part)) out.push({ run, deliveredAfterRecall: part });
    }
    if (!aborted) {
      for (const [text, q] of this.#queued) {
        if (q.run !== run || this.#takenBack.has(text) || this.#droppedIds.has(q.id)) continue;
        if (!delivered.includes(text)) out.push({ run, queuedButNeverDelivered: text });
      }
    }
    return out;
  }
}

beforeAll(async () => {
  h = await startHarness({ entry: { context_window: 8192 } });
  writeFileSync(`${h.workspace}/notes.txt`, "notes\n");
});
afterAll(async () => {
  await h.cleanup();
});

describe("live state = stateAt(trace on disk)", () => {
  it(`holds after every event of ${RUNS} random sessions`, async () => {
    const folds = new SessionFolds({ snapshotEvery: 5 });
    let sessionsRun = 0;
    let checks = 0;
    let historyChecks = 0;

    const folded = (session: Session): SessionState => folds.stateAtFiles(session.id, sessionTraceFiles(h.agent.paths, session.id)).state;
    let told = new StreamAccounting();
    const checkLive = (session: Session, where: string) => {
      checks += 1;
      const state = folded(session);
      const live = { where, turns: session.turns, usage: session.usage, lastRequest: session.lastRequestUsage };
      expect({ where, turns: state.turns, usage: state.sessionUsage, lastRequest: state.lastRequest }).toEqual(live);
      // Steering is drained from the engine's queue just before a compaction that precedes
      // its delivery; while a compaction runs the fold still (rightly) holds it as queued.
      if (state.compaction.status === "idle") expect({ where, steering: state.steering }).toEqual({ where, steering: session.pendingSteering() });
    };
    // Once a stream has been read to its end, the stream's own account must match (mid-stream
    // the engine may already have recorded messages the host has not read yet).
    const checkTold = (session: Session, where: string) => {
      const live = { where, turns: session.turns, usage: session.usage, lastRequest: session.lastRequestUsage };
      expect({ where, turns: told.turns, usage: told.usage, lastRequest: told.lastRequest }).toEqual(live);
    };
    const checkContext = (session: Session, where: string) => {
      const state = folded(session);
      expect({ where, history: content(state.history.toArray()) }).toEqual({ where, history: content(session.history()) });
      expect({ where, carryOver: content(carryOverOf(state, "")) }).toEqual({ where, carryOver: content(session.carryOver()) });
    };

    await fc.assert(
      fc.asyncProperty(sessionArb, async (scenario) => {
        plan = [...scenario.steps];
        h.kit.enqueue(...Array.from({ length: 40 }, () => puller));
        const session = await h.agent.createSession({ workspaceDir: h.workspace });
        told = new StreamAccounting();
        current = session;
        previous = undefined;
        prefixMismatches = [];
        const host = new HostSteering();
        const stopWatchingSteering = session.onTraceAppend((m) => host.recorded(m));
        try {
          for (const [r, run] of scenario.runs.entries()) {
            const controller = new AbortController();
            let seen = 0;
            let denialAt = 0;
            // The engine turns a throwing approve into a denial, so mismatches are kept and
            // asserted after the run rather than thrown here.
            const approvalMismatches: unknown[] = [];
            // A listener must not throw into the writer: mismatches are kept and asserted after the run.
            const historyMismatches: unknown[] = [];
            let commits = 0;
            const stopListening = session.onTraceAppend((m) => {
              // The live fold listens first, so it has folded `m`; a request_end inside a
              // compaction span is the compaction's own request, which commits nothing.
              if (m.type !== "event_msg" || m.payload.type !== "request_end" || m.payload.status !== "completed" || session.state.compactionSpan !== undefined) return;
              commits += 1;
              checks += 1;
              historyChecks += 1;
              const live = content(session.state.history.mapToArray((m) => m));
              const onDisk = content(folded(session).history.mapToArray((m) => m));
              if (JSON.stringify(live) !== JSON.stringify(onDisk)) historyMismatches.push({ run: r, commit: commits, live, onDisk });
            });
            const approve = async (call: { tool_call_id: string; name: string }) => {
              checks += 1;
              const pending = folded(session).pendingApprovals;
              const expected = [{ toolCallId: call.tool_call_id, name: call.name }];
              if (JSON.stringify(pending) !== JSON.stringify(expected)) approvalMismatches.push({ run: r, pending, expected });
              return run.denials[denialAt++ % run.denials.length] ? ("deny" as const) : ("allow" as const);
            };
            let last: OmniMessage | undefined;
            for await (const m of session.run(`task ${r}`, { approve, signal: controller.signal })) {
              seen += 1;
              last = m;
              told.see(m);
              host.streamed(r, m);
              checkLive(session, `run ${r} message ${seen} (${m.type === "event_msg" || m.type === "model_msg" ? m.payload.type : m.type})`);
              if (run.steerAt === seen && session.running) {
                host.queued(r, `steer ${r}`, session.queueSteering(`steer ${r}`));
                if (run.recallOne) {
                  const id = session.queueSteering(`recalled ${r}`);
                  host.queued(r, `recalled ${r}`, id);
                  if (id !== undefined) {
                    host.recall(id);
                    host.tookBack(session.recallSteering(id));
                  }
                }
                checkLive(session, `run ${r} after steering`);
              }
              if (run.abortAfter === seen) controller.abort();
            }
            stopListening();
            expect(approvalMismatches).toEqual([]);
            expect(historyMismatches).toEqual([]);
            expect(prefixMismatches).toEqual([]);
            const aborted = last?.type === "event_msg" && last.payload.type === "abort";
            expect(host.problems(r, aborted)).toEqual([]);
            expect({ run: r, pendingApprovals: folded(session).pendingApprovals }).toEqual({ run: r, pendingApprovals: [] });
            if (aborted && last?.type === "event_msg" && last.payload.type === "abort" && last.payload.reason === "aborted by user") {
              const placeholders = session.carryOver().flatMap((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" && m.payload.output === INTERRUPTED_BY_EXIT ? [m.payload.tool_call_id] : []));
              expect({ run: r, answeredAsIfTheProcessExited: placeholders }).toEqual({ run: r, answeredAsIfTheProcessExited: [] });
            }
            checkLive(session, `run ${r} end`);
            checkContext(session, `run ${r} end`);
            checkTold(session, `run ${r} end`);
            if (run.compactAfter && session.compactability() === "ok") {
              for await (const m of session.compact()) {
                told.see(m);
                checkLive(session, `compact ${r} (${m.type === "event_msg" ? m.payload.type : m.type})`);
              }
              checkContext(session, `compact ${r} end`);
              checkTold(session, `compact ${r} end`);
            }
          }
        } finally {
          stopWatchingSteering();
          await session.dispose();
          folds.forget(session.id);
          sessionsRun += 1;
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(sessionsRun).toBeGreaterThanOrEqual(RUNS);
    expect(checks).toBeGreaterThan(RUNS * 5);
    // Most sessions commit several requests (a few abort or fail before their first).
    expect(historyChecks).toBeGreaterThan(RUNS);
    // Most commits are followed by another request of the same context.
    expect(prefixChecks).toBeGreaterThan(RUNS / 2);
  }, 900_000);
});
