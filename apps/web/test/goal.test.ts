// Goal mode without a DOM: reading a round's [goal] block, budgets and `/goal` arguments,
// folding the goal's sources into one view, what Send means for a goal draft, the reducer's
// goal rows (a live run and its reload from the trace draw the same rows), the controller's
// goal state from GET S/goal, server events and the blocks, and when a task counts as
// completed (the Fork rule).
import { beforeEach, describe, expect, it } from "vitest";
import {
  abortEvent,
  assistantText,
  formatFields,
  goalFinished,
  requestBegin,
  requestEnd,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  wrapMarker,
  type OmniMessage,
} from "@penguin/omnimessage";
import type { SseOptions } from "../src/api/sse";
import type { GoalState } from "../src/api/types";
import type { Attachment } from "../src/features/chat/attachments";
import { planSend } from "../src/features/chat/send-plan";
import { slashItems } from "../src/features/chat/slash-commands";
import { goalBlockOf, isBudget, mergeGoal, splitGoalArgs, type GoalView } from "../src/lib/stream/goal";
import { StreamReducer } from "../src/lib/stream/reducer";
import { SessionController } from "../src/lib/stream/session-controller";
import type { ViewItem } from "../src/lib/stream/view-model";
import { at, publish, resetClock, taskScript } from "./helpers/stream-script";

beforeEach(resetClock);

const FILE = "/data/agents/a/scratchpad/s1/GOAL.yaml";
const usage = (total: number, cached = 0) => ({ cache_read: cached, cache_write: total - cached, output: 10, total });

/** A round's [goal] block as core writes it; its goal file says `budget: 9` to prove the header is read alone. */
function goalBody(round: number, used: number, budget = "500000 tokens"): string {
  const head = formatFields({ round, goal_file: FILE, budget, used: `${used} tokens` });
  return `${head}\nRules:\n- Work toward the objective.\nCurrent goal file:\nobjective: ship it\nstatus: active\nbudget: 9\nround: 99`;
}
const block = (round: number, used: number, budget?: string) => userText(wrapMarker("goal", goalBody(round, used, budget)), { sender: "harness", ...at() });

/** A two-round goal as the live stream carries it: the prompt first, then each round's block; bodies of later rounds are not streamed. */
function liveGoal(): OmniMessage[] {
  return [
    userText("ship it", at()),
    block(1, 0),
    requestBegin(at()),
    assistantText("round one", at()),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(100), usage(100), at()),
    block(2, 100),
    requestBegin(at()),
    toolCall({ name: "write_file", arguments: JSON.stringify({ file_path: FILE, content: "status: complete" }), tool_call_id: "w1" }, at()),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(250), usage(150), at()),
    toolCallOutput({ tool_call_id: "w1", output: "wrote 1 line" }, at()),
    requestBegin(at()),
    assistantText("done", at()),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(400), usage(150), at()),
    goalFinished({ outcome: "complete", rounds: 2, tokens_used: 300 }, at()),
  ];
}

/** The same goal as the trace records it: request_begin before its input, the block before the prompt, round 2's restated objective. */
function tracedGoal(): OmniMessage[] {
  return [
    requestBegin(at()),
    block(1, 0),
    userText("ship it", at()),
    assistantText("round one", at()),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(100), usage(100), at()),
    requestBegin(at()),
    block(2, 100),
    userText("Continue working on the objective:\nship it", { sender: "harness", ...at() }),
    toolCall({ name: "write_file", arguments: JSON.stringify({ file_path: FILE, content: "status: complete" }), tool_call_id: "w1" }, at()),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(250), usage(150), at()),
    toolCallOutput({ tool_call_id: "w1", output: "wrote 1 line" }, at()),
    requestBegin(at()),
    assistantText("done", at()),
    requestEnd("completed", undefined, at()),
    tokenUsage(usage(400), usage(150), at()),
    goalFinished({ outcome: "complete", rounds: 2, tokens_used: 300 }, at()),
  ];
}

/** Rows without their ids and timings, to compare a live run with its reload. */
function shape(items: readonly ViewItem[]): unknown[] {
  return items.map((i) => {
    switch (i.kind) {
      case "user":
        return ["user", i.text];
      case "assistant":
        return ["assistant", i.text];
      case "goal_round":
        return ["goal_round", i.round, i.used, i.budget];
      case "goal_finished":
        return ["goal_finished", i.outcome, i.rounds, i.tokensUsed];
      case "stats":
        return ["stats", i.completed];
      case "tool":
        return ["tool", i.name, i.status];
      default:
        return [i.kind];
    }
  });
}

describe("goal blocks and budgets", () => {
  it("reads the header of a [goal] block and ignores the goal file below it", () => {
    expect(goalBlockOf(goalBody(2, 1234))).toEqual({ round: 2, goalFile: FILE, budget: 500000, used: 1234 });
    expect(goalBlockOf(goalBody(1, 0, "unlimited")).budget).toBeNull();
    expect(goalBlockOf("nothing here")).toEqual({ round: undefined, goalFile: undefined, budget: undefined, used: undefined });
  });

  it("checks budget shapes the way the server parses them", () => {
    for (const ok of ["500k", "2m", "1.5m", "120000", "-1", "5 k"]) expect(isBudget(ok), ok).toBe(true);
    for (const bad of ["", "lots", "0", "0.4", "-2", "-1k", "5g", "1e6"]) expect(isBudget(bad), bad).toBe(false);
  });

  it("splits `/goal` arguments into a leading budget and the objective", () => {
    expect(splitGoalArgs("500k make the tests pass")).toEqual({ budget: "500k", objective: "make the tests pass" });
    expect(splitGoalArgs("make the tests pass")).toEqual({ budget: undefined, objective: "make the tests pass" });
    expect(splitGoalArgs("120000 ship")).toEqual({ budget: "120000", objective: "ship" });
    expect(splitGoalArgs("3 failing tests: fix them")).toEqual({ budget: undefined, objective: "3 failing tests: fix them" });
    expect(splitGoalArgs("2m")).toEqual({ budget: "2m", objective: "" });
  });
});

describe("mergeGoal", () => {
  const snap: GoalState = { objective: "ship it", status: "active", budget: 500000, used: 0, rounds: 1 };

  it("starts, advances by rounds (never backwards) and finishes", () => {
    let g: GoalView = mergeGoal(undefined, { type: "started", objective: "ship it", budget: null });
    expect(g).toEqual({ objective: "ship it", status: "active", budget: null, used: 0, round: 0 });
    g = mergeGoal(g, { type: "round", round: 2, used: 1200 });
    g = mergeGoal(g, { type: "round", round: 1, used: 0 });
    expect(g).toMatchObject({ round: 2, used: 1200 });
    g = mergeGoal(g, { type: "finished", outcome: "budget_limited", rounds: 3, used: 5000 });
    expect(g).toEqual({ objective: "ship it", status: "budget_limited", budget: null, used: 5000, round: 3 });
  });

  it("combines a snapshot with rounds read before it, and keeps a newer goal over an older snapshot", () => {
    const fromBlocks = mergeGoal(undefined, { type: "round", round: 3, used: 900, budget: 500000 });
    expect(fromBlocks.objective).toBeUndefined();
    expect(mergeGoal(fromBlocks, { type: "snapshot", goal: snap })).toEqual({ objective: "ship it", status: "active", budget: 500000, used: 900, round: 3 });
    const newer = mergeGoal(undefined, { type: "started", objective: "another one", budget: 1000 });
    expect(mergeGoal(newer, { type: "snapshot", goal: { ...snap, status: "complete" } })).toBe(newer);
  });
});

describe("planSend for goals", () => {
  const slash = slashItems([{ name: "pdf" }]);
  const draft = (text: string, extra: { goal?: { budget: string }; attachments?: Attachment[] } = {}) => ({ text, attachments: extra.attachments ?? [], goal: extra.goal });
  const image: Attachment = { id: "a1", name: "shot.png", size: 4, item: { type: "image_url", imageUrl: "data:image/png;base64,AA==" }, preview: undefined };

  it("turns `/goal [budget] objective` into a goal task", () => {
    expect(planSend(draft("/goal 500k make the tests pass"), slash)).toEqual({ kind: "task", items: [{ type: "text", text: "make the tests pass" }], goal: { budget: "500k" } });
    expect(planSend(draft("/goal make the tests pass"), slash)).toEqual({ kind: "task", items: [{ type: "text", text: "make the tests pass" }], goal: {} });
    expect(planSend(draft("/goal 2m fix it", { attachments: [image] }), slash)).toMatchObject({ kind: "task", items: [{ type: "text", text: "fix it" }, image.item], goal: { budget: "2m" } });
  });

  it("sends the message as the objective when the goal panel is on, with its budget", () => {
    expect(planSend(draft("ship it", { goal: { budget: " 2m " } }), slash)).toEqual({ kind: "task", items: [{ type: "text", text: "ship it" }], goal: { budget: "2m" } });
    expect(planSend(draft("ship it", { goal: { budget: "" } }), slash)).toEqual({ kind: "task", items: [{ type: "text", text: "ship it" }], goal: {} });
    expect(planSend(draft("/goal 100k ship it", { goal: { budget: "2m" } }), slash)).toMatchObject({ goal: { budget: "100k" } });
  });

  it("refuses an empty objective or a budget of the wrong shape, and leaves plain text alone", () => {
    expect(planSend(draft("/goal"), slash).kind).toBe("error");
    expect(planSend(draft("/goal 500k"), slash).kind).toBe("error");
    expect(planSend(draft("ship it", { goal: { budget: "lots" } }), slash)).toMatchObject({ kind: "error", message: expect.stringContaining("“lots” is not a budget") });
    expect(planSend(draft("just text"), slash)).toEqual({ kind: "task", items: [{ type: "text", text: "just text" }], goal: undefined });
    expect(planSend(draft("/pdf read it", { attachments: [image] }), slash)).toMatchObject({ goal: undefined, items: [{ type: "text", text: "/pdf read it" }, image.item] });
  });
});

describe("StreamReducer in goal mode", () => {
  const run = (messages: OmniMessage[], endAfter: number[] = []) => {
    const r = new StreamReducer();
    messages.forEach((m, i) => {
      r.apply(m);
      if (endAfter.includes(i)) r.endTask();
    });
    r.endTask();
    return r;
  };

  it("draws a banner per round, the final row, and one stats line for the whole goal", () => {
    const items = run(liveGoal()).items();
    expect(shape(items)).toEqual([
      ["user", "ship it"],
      ["goal_round", 1, 0, 500000],
      ["assistant", "round one"],
      ["goal_round", 2, 100, 500000],
      ["tool", "write_file", "done"],
      ["assistant", "done"],
      ["goal_finished", "complete", 2, 300],
      ["stats", true],
    ]);
    const round = items[1];
    expect(round?.kind === "goal_round" && round.goalFile).toBe(FILE);
    expect(round?.kind === "goal_round" && round.body).toContain("Current goal file:");
  });

  it("draws a reload from the trace exactly like the live run, after the previous task's stats", () => {
    const first = taskScript("first task");
    const live = run([...first, ...liveGoal()], [first.length - 1]).items();
    const reload = run([...first, ...tracedGoal()]).items();
    expect(shape(reload)).toEqual(shape(live));
    expect(shape(reload).slice(0, 8).map((s) => (Array.isArray(s) ? s[0] : s))).toEqual(["user", "thinking", "assistant", "tool", "assistant", "stats", "user", "goal_round"]);
  });

  it("reports the running round until the goal finishes", () => {
    const r = new StreamReducer();
    const msgs = liveGoal();
    r.applyAll(msgs.slice(0, 7));
    expect(r.goalRound).toMatchObject({ round: 2, used: 100, budget: 500000 });
    r.applyAll(msgs.slice(7));
    expect(r.goalRound).toBeUndefined();
  });

  it("forgets a goal that never finished once its task ends (a fork's copy, a crash)", () => {
    const cut = tracedGoal().slice(0, -1);
    const r = new StreamReducer();
    r.applyAll(cut);
    expect(r.goalRound).toMatchObject({ round: 2 });
    r.endTask();
    expect(r.goalRound).toBeUndefined();
    r.applyAll([userText("a plain task", at()), requestBegin(at())]);
    expect(r.goalRound).toBeUndefined();
    expect(shape(r.items()).filter((x) => Array.isArray(x) && x[0] === "goal_finished")).toEqual([]);
  });

  it("marks a task completed only when it ends on an answer", () => {
    const stats = (msgs: OmniMessage[]) => run(msgs).items().filter((i) => i.kind === "stats").map((i) => i.kind === "stats" && i.completed);
    expect(stats(taskScript())).toEqual([true]);
    const aborted = [userText("go", at()), requestBegin(at()), assistantText("working", at()), toolCall({ name: "exec_command", arguments: "{}", tool_call_id: "c" }, at()), requestEnd("completed", undefined, at()), abortEvent("user", at())];
    expect(stats(aborted)).toEqual([false]);
    const failed = [userText("go", at()), requestBegin(at()), assistantText("half", at()), requestEnd("failed", { error_message: "503" }, at())];
    expect(stats(failed)).toEqual([false]);
    const stoppedAfterAnswer = [userText("go", at()), requestBegin(at()), assistantText("answer", at()), requestEnd("completed", undefined, at()), abortEvent(undefined, at())];
    expect(stats(stoppedAfterAnswer)).toEqual([false]);
  });
});

describe("SessionController goal state", () => {
  function harness(goal: GoalState | undefined) {
    let opts: SseOptions | undefined;
    let release: (() => void) | undefined;
    const c = new SessionController("s1", {
      openStream: (o) => {
        opts = o;
        return { close: () => undefined, reconnectNow: () => undefined, lastEventId: undefined, status: "open" };
      },
      fetchHistory: () => new Promise((resolve) => (release = () => resolve({ messages: [], live: { cursor: "001:000001", fragments: [] }, cursor: "001:000001", state: "running", pendingApprovals: [] }))),
      fetchGoal: async () => goal,
      schedule: (fn) => fn(),
    });
    c.start();
    const o = () => {
      if (opts === undefined) throw new Error("stream not opened");
      return opts;
    };
    return {
      c,
      open: async () => {
        o().onOpen?.({ reconnect: false, lastEventId: undefined });
        release?.();
        await new Promise((r) => setTimeout(r, 0));
      },
      server: (data: object, id: string) => o().onFrame({ event: "server_event", id, data: JSON.stringify(data) }),
      message: (m: OmniMessage, id: string) => o().onFrame({ event: "message", id, data: JSON.stringify(m) }),
    };
  }

  it("loads the goal on open and follows goal_* events and the rounds' blocks", async () => {
    const h = harness({ objective: "ship it", status: "active", budget: 500000, used: 0, rounds: 1 });
    await h.open();
    expect(h.c.view.goal).toEqual({ objective: "ship it", status: "active", budget: 500000, used: 0, round: 1 });
    expect(h.c.view.goalRunning).toBe(false);
    h.message(block(2, 4200), "001:000002");
    expect(h.c.view.goal).toMatchObject({ round: 2, used: 4200 });
    expect(h.c.view.goalRunning).toBe(true);
    h.server({ type: "goal_round", round: 2, used: 0 }, "001:000003");
    expect(h.c.view.goal).toMatchObject({ round: 2, used: 4200 });
    h.message(goalFinished({ outcome: "blocked", rounds: 2, tokens_used: 6000 }, at()), "001:000004");
    h.server({ type: "goal_finished", outcome: "blocked", rounds: 2, tokensUsed: 6000 }, "001:000005");
    expect(h.c.view.goal).toMatchObject({ status: "blocked", used: 6000 });
    expect(h.c.view.goalRunning).toBe(false);
    h.server({ type: "goal_started", objective: "try again", budget: null }, "001:000006");
    expect(h.c.view.goal).toEqual({ objective: "try again", status: "active", budget: null, used: 0, round: 0 });
  });

  it("never takes an `active` goal left by a dead run for a running one", async () => {
    const h = harness({ objective: "old", status: "active", budget: null, used: 0, rounds: 4 });
    await h.open();
    h.message(userText("a plain task", at()), "001:000002");
    expect(h.c.view.goal?.status).toBe("active");
    expect(h.c.view.goalRunning).toBe(false);
  });

  it("has no goal for a session that never ran one", async () => {
    const h = harness(undefined);
    await h.open();
    for (const p of publish([userText("hi", at())], "ep1", 2)) h.message(p.message, p.id);
    expect(h.c.view.goal).toBeUndefined();
  });
});
