/**
 * `penguin attach SID [--server URL] [--user ID]`: follow a session of a running server
 * live, rendered as `penguin chat` renders a task (the same HumanRenderer), from the
 * terminal. It is a plain client of the session's SSE stream: it signs in (the password
 * from PENGUIN_PASSWORD, never a flag, so it stays out of shell history and `ps`), prints
 * the session's messages and task state as they come, and when the connection drops it
 * reconnects with Last-Event-ID after the server's `retry:` hint, so the server replays
 * exactly what was missed. Ctrl-C detaches: the stream is closed, the task keeps running.
 *
 * Without --server it looks for the server of the local data root (its server.lock).
 * Approvals are shown, not answered: answering needs the session's controller rights and
 * stays in the web app.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { SseParser, type SseEvent } from "../attach/sse-reader.js";
import { HumanRenderer } from "../render/human-renderer.js";
import { Output } from "../render/output.js";

export interface AttachFlags {
  server?: string;
  user?: string;
  root?: string;
}

const DEFAULT_RETRY_MS = 2000;

export async function attachCommand(sessionId: string, flags: AttachFlags, env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const out = Output.of(process.stdout, env);
  const err = Output.of(process.stderr, env);
  const base = await serverBase(flags, env);
  if (base === undefined) {
    err.line("no server is reachable: start `penguin server` (or `penguin web`) on this data root, or pass --server URL");
    return EXIT.usage;
  }
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

  const detach = new AbortController();
  const onSigint = () => detach.abort();
  process.once("SIGINT", onSigint);
  const renderer = new HumanRenderer({ text: out, side: out, verbose: () => false });
  const parser = new SseParser();
  let lastState: string | undefined;
  const onEvent = (e: SseEvent): void => {
    if (e.event === "message") {
      renderer.handle(JSON.parse(e.data) as OmniMessage);
      return;
    }
    if (e.event !== "server_event") return;
    const ev = JSON.parse(e.data) as { type?: string; state?: string; toolCall?: { name?: string } };
    if (ev.type === "task_state" && ev.state !== lastState) {
      if (lastState !== undefined || ev.state !== "idle") {
        renderer.finish();
        out.line(out.colors.dim(`[${ev.state ?? "?"}]`));
      }
      lastState = ev.state;
    } else if (ev.type === "approval_request") {
      out.line(out.colors.yellow(`[approval] ${ev.toolCall?.name ?? "a tool"} waits for a decision (answer it in the web app)`));
    } else if (ev.type === "resync_required") {
      out.line(out.colors.dim("[resync] the server cannot replay what was missed; showing live events from here"));
    } else if (ev.type === "task_error") {
      out.line(out.colors.red(`[error] ${String((ev as { message?: unknown }).message ?? "")}`));
    }
  };

  try {
    out.line(out.colors.dim(`attached to ${sessionId} at ${base} (Ctrl-C detaches; the task keeps running)`));
    for (;;) {
      const answer = await follow(base, sessionId, cookie, parser, onEvent, detach.signal);
      if (detach.signal.aborted) break;
      if (answer === "gone") {
        err.line(`session ${sessionId} is not there, or ${userId} may not see it`);
        return EXIT.failed;
      }
      if (answer === "forbidden") {
        err.line(`${userId} must change the initial password in the web app before attaching`);
        return EXIT.auth;
      }
      // Dropped: wait for the server's hint, then resume from the last event id.
      await pause(parser.retryMs ?? DEFAULT_RETRY_MS, detach.signal);
      if (detach.signal.aborted) break;
    }
  } finally {
    process.off("SIGINT", onSigint);
  }
  renderer.finish();
  out.line(out.colors.dim(`detached from ${sessionId}; the task keeps running on the server`));
  return EXIT.done;
}

async function serverBase(flags: AttachFlags, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (flags.server !== undefined) return flags.server.replace(/\/+$/, "");
  const { resolveRoot } = await import("@penguin/core");
  const { findRunningServer } = await import("@penguin/server");
  return findRunningServer(resolveRoot(flags.root, env));
}

async function signIn(base: string, userId: string, password: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId, password }) });
  } catch (error) {
    throw new Error(`cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (res.status !== 200) throw new Error(`signing in as ${userId} failed (${res.status}): check the user id and PENGUIN_PASSWORD`);
  const pair = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  if (pair === "") throw new Error("the server answered the sign-in without a session cookie");
  return pair;
}

/** Reads the stream until it ends: "ended" (dropped or closed), or why it could not start. */
async function follow(base: string, sessionId: string, cookie: string, parser: SseParser, onEvent: (e: SseEvent) => void, signal: AbortSignal): Promise<"ended" | "gone" | "forbidden"> {
  const headers: Record<string, string> = { cookie, accept: "text/event-stream" };
  if (parser.lastEventId !== undefined) headers["last-event-id"] = parser.lastEventId;
  let res: Response;
  try {
    res = await fetch(`${base}/api/sessions/${encodeURIComponent(sessionId)}/stream`, { headers, signal });
  } catch {
    return "ended";
  }
  if (res.status === 404) return "gone";
  if (res.status === 403) return "forbidden";
  if (res.status !== 200 || res.body === null) return "ended";
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const e of parser.push(decoder.decode(value, { stream: true }))) onEvent(e);
    }
  } catch {
    // Aborted by Ctrl-C, or the connection broke: either way this attempt is over.
  }
  return "ended";
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
