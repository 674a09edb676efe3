/**
 * `penguin attach SID [--server URL] [--user ID]`: follow a session live, rendered as
 * `penguin chat` renders a task (the same HumanRenderer), from the terminal.
 *
 * With a server (--server, else the one whose server.lock is on the data root) it is a plain
 * client of the session's SSE stream (attach/server-feed.ts): it signs in with
 * PENGUIN_PASSWORD, prints the session's records and task state as they come, and resumes a
 * dropped connection with Last-Event-ID, so the server replays exactly what was missed from
 * the trace (even across a server restart). Approval requests are shown with how to answer
 * them: a line `y` (allow) or `n` (deny) on stdin answers the oldest one, when the signed-in
 * user may (the session's creator, a project owner, an admin); otherwise the server's refusal
 * is printed and the web app remains the place to answer.
 *
 * With no server reachable it follows the session's trace files on the data root instead
 * (and says so): the records written so far, then each new line as it is appended (by a CLI
 * or SDK process running the session). Approvals cannot be answered there. When a process
 * holds the session's lease (one writer per session) it is named, and the attach ends once
 * that holder lets the session go or dies (its lease released or stale); with no holder it
 * follows until Ctrl-C.
 *
 * Ctrl-C detaches either way: the stream is closed, the task keeps running.
 */
import { createInterface } from "node:readline";
import { existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from "node:fs";
import type { OmniMessage } from "@penguin/omnimessage";
import { EXIT, type ExitCode } from "../exit-codes.js";
import type { SseEvent } from "../attach/sse-reader.js";
import { detachOnSigint, followStream, pause, serverBase, signIn } from "../attach/server-feed.js";
import { HumanRenderer } from "../render/human-renderer.js";
import { Output } from "../render/output.js";

export interface AttachFlags {
  server?: string;
  user?: string;
  root?: string;
}

export async function attachCommand(sessionId: string, flags: AttachFlags, env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const out = Output.of(process.stdout, env);
  const err = Output.of(process.stderr, env);
  const base = await serverBase(flags, env);
  if (base === undefined) return followLocal(sessionId, flags, env, out, err);
  const password = env.PENGUIN_PASSWORD;
  if (password === undefined || password === "") {
    err.line("set PENGUIN_PASSWORD to the password of the user to sign in as (--user, default admin)");
    return EXIT.usage;
  }
  const userId = flags.user ?? "admin";
  let cookie: string;
  try {
    cookie = await signIn(base, userId, password);
  } catch (error) {
    err.line(error instanceof Error ? error.message : String(error));
    return EXIT.auth;
  }

  const detach = detachOnSigint();
  const renderer = new HumanRenderer({ text: out, side: out, verbose: () => false });
  const approvals = new ApprovalAnswers(base, sessionId, cookie, userId, out);
  let lastState: string | undefined;
  const onEvent = (e: SseEvent): void => {
    if (e.event === "message") {
      renderer.handle(JSON.parse(e.data) as OmniMessage);
      return;
    }
    if (e.event !== "server_event") return;
    const ev = JSON.parse(e.data) as { type?: string; state?: string; toolCallId?: string; toolCall?: { name?: string } };
    if (ev.type === "task_state" && ev.state !== lastState) {
      if (lastState !== undefined || ev.state !== "idle") {
        renderer.finish();
        out.line(out.colors.dim(`[${ev.state ?? "?"}]`));
      }
      lastState = ev.state;
    } else if (ev.type === "approval_request" && ev.toolCallId !== undefined) {
      if (approvals.requested(ev.toolCallId)) {
        renderer.finish();
        out.line(out.colors.yellow(`[approval] ${ev.toolCall?.name ?? "a tool"} waits for a decision: type y to allow or n to deny (or answer it in the web app)`));
      }
    } else if (ev.type === "approval_resolved" && ev.toolCallId !== undefined) {
      approvals.resolved(ev.toolCallId);
    } else if (ev.type === "resync_required") {
      out.line(out.colors.dim("[resync] the server cannot replay what was missed; showing live events from here"));
    } else if (ev.type === "task_error") {
      out.line(out.colors.red(`[error] ${String((ev as { message?: unknown }).message ?? "")}`));
    }
  };

  let end: Awaited<ReturnType<typeof followStream>>;
  try {
    out.line(out.colors.dim(`attached to ${sessionId} at ${base} (Ctrl-C detaches; the task keeps running)`));
    end = await followStream(base, `/api/sessions/${encodeURIComponent(sessionId)}/stream`, cookie, onEvent, detach.signal);
  } finally {
    detach.release();
    approvals.close();
  }
  if (end === "gone") {
    err.line(`session ${sessionId} is not there, or ${userId} may not see it`);
    return EXIT.failed;
  }
  if (end === "forbidden") {
    err.line(`${userId} must change the initial password in the web app before attaching`);
    return EXIT.auth;
  }
  renderer.finish();
  out.line(out.colors.dim(`detached from ${sessionId}; the task keeps running on the server`));
  return EXIT.done;
}

/** Pending approvals of the attached session, answered by `y` / `n` lines on stdin, oldest first. */
class ApprovalAnswers {
  readonly #pending: string[] = [];
  readonly #seen = new Set<string>();
  readonly #lines: ReturnType<typeof createInterface>;

  constructor(
    readonly base: string,
    readonly sessionId: string,
    readonly cookie: string,
    readonly userId: string,
    readonly out: Output,
  ) {
    this.#lines = createInterface({ input: process.stdin, terminal: false });
    this.#lines.on("line", (line) => void this.#answer(line.trim().toLowerCase()));
  }

  /** True the first time a request is seen (a reconnect repeats the pending ones). */
  requested(toolCallId: string): boolean {
    if (this.#seen.has(toolCallId)) return false;
    this.#seen.add(toolCallId);
    this.#pending.push(toolCallId);
    return true;
  }

  resolved(toolCallId: string): void {
    const at = this.#pending.indexOf(toolCallId);
    if (at >= 0) this.#pending.splice(at, 1);
  }

  close(): void {
    this.#lines.close();
  }

  async #answer(line: string): Promise<void> {
    const decision = line === "y" || line === "yes" ? "allow" : line === "n" || line === "no" ? "deny" : undefined;
    if (decision === undefined) return;
    const toolCallId = this.#pending[0];
    if (toolCallId === undefined) {
      this.out.line(this.out.colors.dim("[approval] nothing waits for a decision"));
      return;
    }
    const res = await fetch(`${this.base}/api/sessions/${encodeURIComponent(this.sessionId)}/approvals/${encodeURIComponent(toolCallId)}`, {
      method: "POST",
      headers: { cookie: this.cookie, "content-type": "application/json" },
      body: JSON.stringify({ decision }),
    }).catch(() => undefined);
    if (res === undefined) this.out.line(this.out.colors.red("[approval] the server could not be reached; try again"));
    else if (res.status === 204) this.resolved(toolCallId);
    else if (res.status === 403) this.out.line(this.out.colors.red(`[approval] ${this.userId} may not answer this session's approvals: its creator or a project owner can, here or in the web app`));
    else this.out.line(this.out.colors.red(`[approval] the server refused the answer (${res.status})`));
  }
}

/** Where a session's trace files are on the data root: any agent of any project. */
async function localTraceFiles(root: string, sessionId: string): Promise<() => { index: number; file: string }[]> {
  const { agentPaths, projectPaths, sessionTraceFiles } = await import("@penguin/core");
  const agents: ReturnType<typeof agentPaths>[] = [];
  for (const project of safeDirs(root)) {
    let agentsDir: string;
    try {
      agentsDir = projectPaths(root, project).agentsDir;
    } catch {
      continue;
    }
    for (const agent of safeDirs(agentsDir)) {
      try {
        agents.push(agentPaths(root, project, agent));
      } catch {
        // not an agent folder
      }
    }
  }
  return () => {
    for (const paths of agents) {
      const files = sessionTraceFiles(paths, sessionId);
      if (files.length > 0) return files;
    }
    return [];
  };
}

function safeDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

async function followLocal(sessionId: string, flags: AttachFlags, env: NodeJS.ProcessEnv, out: Output, err: Output): Promise<ExitCode> {
  const { resolveRoot, parseTraceText, liveLeaseHolder, describeLeaseHolder } = await import("@penguin/core");
  const root = resolveRoot(flags.root, env);
  const files = await localTraceFiles(root, sessionId);
  if (files().length === 0) {
    err.line(`no server is reachable, and ${root} holds no trace of ${sessionId}: start \`penguin server\` (or \`penguin web\`) on this data root, pass --server URL, or check the session id`);
    return EXIT.usage;
  }
  out.line(out.colors.dim(`no server is reachable: following the local trace of ${sessionId} under ${root} (Ctrl-C detaches)`));
  // The holder's lease beside the trace files: the attach lasts as long as that holder.
  const leaseFile = `${files()[0]!.file.replace(/_\d{3,}\.jsonl$/, "")}.lease`;
  const holder = liveLeaseHolder(leaseFile);
  const holderGone = () => holder !== undefined && liveLeaseHolder(leaseFile)?.token !== holder.token;
  if (holder !== undefined) out.line(out.colors.dim(`run by ${describeLeaseHolder(holder)}; the attach ends when it lets the session go`));
  const renderer = new HumanRenderer({ text: out, side: out, verbose: () => false });
  // Bytes of each file already rendered (only whole lines: a line being written waits).
  const done = new Map<string, number>();
  const readNew = () => {
    for (const f of files()) {
      const from = done.get(f.file) ?? 0;
      let size: number;
      try {
        size = statSync(f.file).size;
      } catch {
        continue;
      }
      if (size <= from) continue;
      const text = readFileSync(f.file).subarray(from).toString("utf8");
      const end = text.lastIndexOf("\n") + 1;
      if (end === 0) continue;
      done.set(f.file, from + Buffer.byteLength(text.slice(0, end)));
      for (const m of parseTraceText(text.slice(0, end)).messages) renderer.handle(m);
    }
  };
  const detach = detachOnSigint();
  const watchers: FSWatcher[] = [];
  let wake: (() => void) | undefined;
  try {
    readNew();
    const dir = files()[0]?.file.replace(/\/[^/]+$/, "");
    if (dir !== undefined && existsSync(dir)) {
      try {
        watchers.push(watch(dir, { persistent: false }, () => wake?.()));
      } catch {
        // no watching here: the timer below still looks every half second
      }
    }
    while (!detach.signal.aborted) {
      await Promise.race([pause(500, detach.signal), new Promise<void>((resolve) => (wake = resolve))]);
      // Asked before the last read, so every line the holder wrote is shown before the end.
      const ended = holderGone();
      readNew();
      if (ended) {
        renderer.finish();
        out.line(out.colors.dim(`[ended] ${holder!.command} (pid ${holder!.pid}) no longer runs ${sessionId}`));
        return EXIT.done;
      }
    }
  } finally {
    detach.release();
    for (const w of watchers) w.close();
  }
  renderer.finish();
  out.line(out.colors.dim(`detached from ${sessionId}`));
  return EXIT.done;
}
