/**
 * The open task and its statistics (requests, tokens, time, generation time) for the stream
 * reducer. A task opens at a human input after output (or implicitly at the first output of
 * a child session's view) and closes when the server says the session is idle; while open
 * its stats ride at the end of the rows (`liveItem`), and once closed they become a fixed
 * row (`close`). `completed` says the last request ended on an answer with no tool call
 * and nothing aborted since: a fork can cut after such a task.
 */
import type { StopReason, TokenCounts } from "@penguin/omnimessage";
import { ZERO_TOKENS, type StatsItem, type TaskStats } from "../view-model";

interface OpenTask {
  statsId: string;
  firstTs: number;
  lastTs: number;
  requests: number;
  tokens: TokenCounts;
  generationMs: number;
  sawOutput: boolean;
  completed: boolean;
}

function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    cache_read: a.cache_read + (b.cache_read ?? 0),
    cache_write: a.cache_write + (b.cache_write ?? 0),
    output: a.output + (b.output ?? 0),
    total: a.total + (b.total ?? 0),
  };
}

function statsOf(task: OpenTask): TaskStats {
  return {
    requests: task.requests,
    tokens: task.tokens,
    durationMs: Math.max(0, task.lastTs - task.firstTs),
    generationMs: task.generationMs,
  };
}

function sameStats(a: TaskStats, b: TaskStats): boolean {
  return (
    a.requests === b.requests &&
    a.durationMs === b.durationMs &&
    a.generationMs === b.generationMs &&
    a.tokens.total === b.tokens.total &&
    a.tokens.output === b.tokens.output &&
    a.tokens.cache_read === b.tokens.cache_read &&
    a.tokens.cache_write === b.tokens.cache_write
  );
}

export class TaskReducer {
  #task: OpenTask | undefined;
  #liveStats: StatsItem | undefined;
  /** When the current model request began (requests are paired, never nested). */
  #requestBegin: number | undefined;
  /** What the current request produced: an answer, tool calls. */
  #requestText = false;
  #requestTools = false;

  get open(): boolean {
    return this.#task !== undefined;
  }

  /** Output was seen in the open task (a new human input then starts another task). */
  get sawOutput(): boolean {
    return this.#task?.sawOutput === true;
  }

  start(ts: number, statsId: string): void {
    this.#task = { statsId, firstTs: ts, lastTs: ts, requests: 0, tokens: ZERO_TOKENS, generationMs: 0, sawOutput: false, completed: false };
  }

  /** A message of the open task arrived at `ts` (the task's duration runs to the newest). */
  touch(ts: number): void {
    if (this.#task !== undefined && ts > this.#task.lastTs) this.#task.lastTs = ts;
  }

  markOutput(): void {
    if (this.#task !== undefined) this.#task.sawOutput = true;
  }

  requestBegun(ts: number): void {
    this.#requestBegin = ts;
    this.#requestText = false;
    this.#requestTools = false;
  }

  answered(): void {
    this.#requestText = true;
  }

  calledTool(): void {
    this.#requestTools = true;
  }

  /** Counts the request into the open task; answers whether the task's stats changed. */
  requestEnded(status: StopReason, ts: number): boolean {
    const task = this.#task;
    const begin = this.#requestBegin;
    this.#requestBegin = undefined;
    if (task === undefined) return false;
    task.requests += 1;
    if (begin !== undefined) task.generationMs += Math.max(0, ts - begin);
    task.completed = status === "completed" && this.#requestText && !this.#requestTools;
    return true;
  }

  /** Adds one request's usage; answers whether a task was open to take it. */
  addUsage(tokens: TokenCounts): boolean {
    if (this.#task === undefined) return false;
    this.#task.tokens = addTokens(this.#task.tokens, tokens);
    return true;
  }

  aborted(): void {
    if (this.#task !== undefined) this.#task.completed = false;
  }

  /** Closes the open task: its fixed stats row, when it did anything. */
  close(): StatsItem | undefined {
    const task = this.#task;
    this.#task = undefined;
    this.#liveStats = undefined;
    if (task === undefined || (task.requests === 0 && !task.sawOutput)) return undefined;
    return { kind: "stats", id: task.statsId, stats: statsOf(task), running: false, completed: task.completed };
  }

  /** The open task's stats row (the same object while the figures are unchanged). */
  liveItem(): StatsItem | undefined {
    const task = this.#task;
    if (task === undefined || task.requests === 0) return undefined;
    const stats = statsOf(task);
    const prev = this.#liveStats;
    if (prev !== undefined && sameStats(prev.stats, stats)) return prev;
    this.#liveStats = { kind: "stats", id: task.statsId, stats, running: true, completed: false };
    return this.#liveStats;
  }
}
