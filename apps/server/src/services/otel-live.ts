/**
 * Live OpenTelemetry export: when a session's task ends (the hub goes idle) its trace is
 * projected to spans (@penguin/projections-otel) and the tasks not sent yet go to the
 * collector; at start, every session whose trace changed since the checkpoint is caught up.
 *
 * The checkpoint (`<data root>/otel-export.json`) lists, per session, the task spans already
 * accepted by the collector and the trace's modification time then. A task is written to it
 * only after the collector accepted all its spans, and a task is sent whole or not at all, so
 * a restart sends each task once; only a crash between the collector's answer and the
 * checkpoint write sends one again, and then with the same ids (the ids are derived from the
 * trace), which a collector can recognise. Exports run one at a time; a failed one is
 * reported and retried at the session's next idle or the next start.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentPaths, listTracedSessions, loadRecording, PROJECT_OR_AGENT_ID } from "@penguin/core";
import type { SessionSpan } from "@penguin/projections-otel";

export const OTEL_CHECKPOINT_FILE = "otel-export.json";

export interface OtelLiveOptions {
  root: string;
  /** The collector (base URL or …/v1/traces); undefined: the OTEL_EXPORTER_OTLP_* variables. */
  endpoint: string | undefined;
  contents: boolean;
  report(error: unknown): void;
}

interface Checkpoint {
  sessions: Record<string, { tasks: string[]; mtimeMs: number }>;
}

export interface SessionRef {
  projectId: string;
  agentId: string;
  sessionId: string;
}

/** The spans of each task, in order: a task span and the spans after it up to the next task. */
function byTask(spans: readonly SessionSpan[]): SessionSpan[][] {
  const tasks: SessionSpan[][] = [];
  for (const span of spans) {
    const taskSpan = span.attributes["gen_ai.operation.name"] === "invoke_agent" && span.name !== "invoke_agent subagent";
    if (span.parentSpanId === undefined || tasks.length === 0 || taskSpan) tasks.push([span]);
    else tasks.at(-1)!.push(span);
  }
  return tasks;
}

export class OtelLiveExporter {
  readonly #options: OtelLiveOptions;
  readonly #file: string;
  #chain: Promise<void> = Promise.resolve();

  constructor(options: OtelLiveOptions) {
    this.#options = options;
    this.#file = join(options.root, OTEL_CHECKPOINT_FILE);
  }

  /** A task of the session ended: send what is not sent yet. */
  sessionIdle(ref: SessionRef): void {
    this.#enqueue(() => this.#exportSession(ref, undefined));
  }

  /** At start: every session whose trace changed since the checkpoint. */
  catchUp(): void {
    this.#enqueue(async () => {
      const checkpoint = this.#read();
      for (const ref of this.#allSessions()) {
        const known = checkpoint.sessions[ref.sessionId];
        if (known !== undefined && ref.mtimeMs <= known.mtimeMs) continue;
        await this.#exportSession(ref, ref.mtimeMs);
      }
    });
  }

  /** Resolves once every export asked for so far has finished. */
  drain(): Promise<void> {
    return this.#chain;
  }

  #enqueue(job: () => Promise<void>): void {
    this.#chain = this.#chain.then(job).catch((error: unknown) => this.#options.report(error));
  }

  async #exportSession(ref: SessionRef, mtimeMs: number | undefined): Promise<void> {
    const { exportSpans, sessionSpans } = await import("@penguin/projections-otel");
    const paths = agentPaths(this.#options.root, ref.projectId, ref.agentId);
    const records = loadRecording({ paths }, ref.sessionId).events.map((e) => ({ n: e.n, message: e.message }));
    const checkpoint = this.#read();
    const entry = checkpoint.sessions[ref.sessionId] ?? { tasks: [], mtimeMs: 0 };
    const sent = new Set(entry.tasks);
    const target = this.#options.endpoint === undefined ? {} : { endpoint: this.#options.endpoint };
    for (const task of byTask(sessionSpans(records, { contents: this.#options.contents, agentName: ref.agentId }))) {
      const id = task[0]!.spanId;
      if (sent.has(id)) continue;
      await exportSpans(task, target);
      sent.add(id);
      entry.tasks.push(id);
      entry.mtimeMs = mtimeMs ?? Date.now();
      checkpoint.sessions[ref.sessionId] = entry;
      this.#write(checkpoint);
    }
    if (mtimeMs !== undefined && entry.mtimeMs < mtimeMs) {
      entry.mtimeMs = mtimeMs;
      checkpoint.sessions[ref.sessionId] = entry;
      this.#write(checkpoint);
    }
  }

  /** Written whole or not at all: a crash leaves the previous checkpoint. */
  #write(checkpoint: Checkpoint): void {
    const temporary = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(checkpoint)}\n`, { mode: 0o600 });
    renameSync(temporary, this.#file);
  }

  #read(): Checkpoint {
    if (!existsSync(this.#file)) return { sessions: {} };
    try {
      const v = JSON.parse(readFileSync(this.#file, "utf8")) as Partial<Checkpoint>;
      return { sessions: typeof v.sessions === "object" && v.sessions !== null ? v.sessions : {} };
    } catch {
      return { sessions: {} };
    }
  }

  #allSessions(): (SessionRef & { mtimeMs: number })[] {
    const out: (SessionRef & { mtimeMs: number })[] = [];
    const dirs = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((d) => PROJECT_OR_AGENT_ID.test(d)) : []);
    for (const projectId of dirs(this.#options.root)) {
      for (const agentId of dirs(join(this.#options.root, projectId, "agents"))) {
        for (const s of listTracedSessions(agentPaths(this.#options.root, projectId, agentId))) out.push({ projectId, agentId, sessionId: s.sessionId, mtimeMs: s.mtimeMs });
      }
    }
    return out.sort((a, b) => a.mtimeMs - b.mtimeMs);
  }
}
