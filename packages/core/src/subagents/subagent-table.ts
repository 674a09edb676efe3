/**
 * The children of one parent session: spawning through the SubagentRunner, the cap on live
 * children, lookup by id, `[background_task_done]` notices, listing for hosts, and stopping
 * everything on dispose. The subagent counterpart of commands/process-table.ts.
 *
 * - Ids are the child session ids: the same string is the `subagent_id` the model types
 *   back, the `origin` hop on forwarded messages and the `subagent` pointer in the trace.
 * - At most `maxLive` children are alive. A spawn beyond that releases the least recently
 *   used idle child (disposed; its trace stays); when every child is running it is refused.
 * - A child started with `run_in_background` queues a notice each time a task ends, unless
 *   the task was killed or a tool output already showed the parent's model how it ended.
 *   `drainNotices` hands the texts over once; the engine delivers them at a turn boundary.
 * - Nothing here throws: a runner that rejects is a refused spawn with its message.
 */
import type { SubagentHandle, SubagentRunner, SubagentSpawnOptions } from "../interfaces.js";
import { Child } from "./child.js";
import { MAX_LIVE_SUBAGENTS } from "./limits.js";
import { subagentNotice } from "./notice.js";
import type { TaskReport } from "./task-report.js";

export interface SubagentInfo {
  /** The child session id (also its `subagent_id`). */
  id: string;
  /** The child's model, for pricing its usage. */
  provider: string | undefined;
  modelId: string | undefined;
  status: "running" | "idle";
  /** What its latest task is for. */
  label: string | undefined;
  /** ISO time the child was spawned. */
  started: string;
  /** Model requests and tokens over all its tasks so far. */
  turns: number;
  tokens: number;
}

export interface SubagentTableOptions {
  runner: SubagentRunner;
  maxLive?: number;
}

export type SpawnResult = { ok: true; child: Child } | { ok: false; error: string };

export class SubagentTable {
  readonly maxLive: number;
  #runner: SubagentRunner;
  #children = new Map<string, Child>();
  /** Why an id is no longer live, for errors the model can act on. */
  #gone = new Map<string, string>();
  #notices: { child: Child; report: TaskReport }[] = [];
  #labels = new Map<string, string>();
  #pending = 0;
  #clock = 0;
  #disposed = false;
  #stopping = new Set<Promise<void>>();

  constructor(options: SubagentTableOptions) {
    this.#runner = options.runner;
    this.maxLive = options.maxLive ?? MAX_LIVE_SUBAGENTS;
  }

  /** Spawn a child (releasing an idle one if the table is full). */
  async spawn(options: SubagentSpawnOptions): Promise<SpawnResult> {
    if (this.#disposed) return { ok: false, error: "The session is shutting down; no new subagents start." };
    if (this.#children.size + this.#pending >= this.maxLive) {
      const idle = [...this.#children.values()].filter((c) => !c.running).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idle === undefined) {
        const running = [...this.#children.keys()].join(", ");
        return {
          ok: false,
          error: `Too many subagents: the limit is ${this.maxLive} per session and all of them are running (${running}). Wait for one with input_subagent or stop one with kill_subagent first.`,
        };
      }
      this.#release(idle, `it was released to make room for a new subagent (limit ${this.maxLive} per session)`);
    }
    this.#pending += 1;
    let handle: SubagentHandle;
    try {
      handle = await this.#runner.spawn(options);
    } catch (err) {
      return { ok: false, error: `The subagent could not start: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      this.#pending -= 1;
    }
    const child = new Child(handle, { onTaskEnd: (c, report) => this.#taskEnded(c, report) });
    if (this.#disposed) {
      this.#track(child.kill());
      return { ok: false, error: "The session is shutting down; no new subagents start." };
    }
    this.touch(child);
    this.#children.set(child.id, child);
    return { ok: true, child };
  }

  get(id: string): Child | undefined {
    return this.#children.get(id);
  }

  /** Marks a child as just used (it is released last). */
  touch(child: Child): void {
    child.lastUsed = ++this.#clock;
  }

  /** Remember what a task is for (listing). */
  label(child: Child, label: string): void {
    this.#labels.set(child.id, label);
  }

  /** An error text for an id that names no live child. */
  unknown(id: string): string {
    const gone = this.#gone.get(id);
    if (gone !== undefined) return `Subagent ${id} is no longer available: ${gone}. Start a new one with run_subagent.`;
    const known = [...this.#children.keys()];
    return `Unknown subagent_id ${id}.${known.length > 0 ? ` Live subagents: ${known.join(", ")}.` : " No subagents are alive."}`;
  }

  /** Kill a child (no notice is sent for it) and forget it. */
  async kill(child: Child): Promise<void> {
    this.#gone.set(child.id, "it was killed");
    this.#children.delete(child.id);
    const stopping = child.kill();
    this.#track(stopping);
    await stopping;
  }

  list(): SubagentInfo[] {
    return [...this.#children.values()].map((c) => ({
      id: c.id,
      provider: c.handle.provider,
      modelId: c.handle.modelId,
      status: c.running ? "running" : "idle",
      label: this.#labels.get(c.id),
      started: c.startedAt.toISOString(),
      ...c.totals(),
    }));
  }

  /** Notices of ended background tasks the parent's model has not seen end; once each. */
  drainNotices(): string[] {
    const ready = this.#notices.filter((n) => !n.report.reported && !n.child.killed);
    this.#notices = [];
    return ready.map((n) => {
      n.report.reported = true;
      return subagentNotice(n.child.id, n.report);
    });
  }

  /** Stops every child and waits for them. Idempotent. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const child of this.#children.values()) {
      this.#gone.set(child.id, "the session was closed");
      this.#track(child.kill());
    }
    this.#children.clear();
    while (this.#stopping.size > 0) await Promise.all([...this.#stopping]);
  }

  #release(child: Child, why: string): void {
    this.#gone.set(child.id, why);
    this.#children.delete(child.id);
    this.#track(child.kill());
  }

  #track(stopping: Promise<void>): void {
    this.#stopping.add(stopping);
    void stopping.then(() => this.#stopping.delete(stopping));
  }

  #taskEnded(child: Child, report: TaskReport): void {
    if (child.notify && report.status !== "killed") this.#notices.push({ child, report });
  }
}
