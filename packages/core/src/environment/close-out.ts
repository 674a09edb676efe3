/**
 * The close-out: how every tool call, builtin or extra, becomes OmniMessages. Tools only
 * produce text and a result; the rules below live here once, so no tool can break them.
 *
 * Framing. `partial_tool_call_output` start, then deltas as output arrives, then one last
 * delta with whatever the close-out appends (notes, markers, images whole), then stop, then
 * exactly one complete `tool_call_output`. The deltas concatenate to the complete output.
 *
 * Truncation. Head kept: the first `outputChars` characters stream; the rest does not. If
 * anything was cut, the whole output (up to `archiveBytes`) goes to the archive file and a
 * note gives its path. Notes and images are placed after the window, so they always survive.
 *
 * Time. The tool's signal fires on interrupt, on its timeout (armed through an injectable
 * scheduler, so tests fire it at a chosen moment), or on dispose. A tool is given
 * `settleMs` after that to wind down (a command reaps its process group); one that does not
 * is abandoned, so an interrupt always ends the call.
 *
 * Secrets. Vault values are replaced by `[vault:KEY]` in the tool's stream and notes before
 * anything is windowed, archived or emitted (redact.ts).
 *
 * Verdict. interrupt > timeout > throw > the tool's own `stopReason` > `completed`. An empty
 * output reads `[no output]`. Nothing here throws to the caller.
 */
import { modelMessage, toolCallOutput, type OmniMessage, type StopReason, type StreamEventType } from "@penguin/omnimessage";
import { writeArchive } from "./archive.js";
import { OutputWindow } from "./output-window.js";
import type { ToolContext, ToolResult } from "./tool.js";
import { redactStream, type SecretRedactor } from "./redact.js";

export const NO_OUTPUT = "[no output]";
export const INTERRUPTED_NOTE = "[interrupted: tool aborted by user]";

/** What the Environment decided to do with a call before any tool code runs. */
export type CallPlan =
  | { kind: "reject"; message: string }
  | {
      kind: "run";
      timeoutMs: number;
      outputChars: number;
      run: (ctx: ToolContext) => AsyncGenerator<string, ToolResult<unknown>>;
    };

export interface CloseOutOptions {
  toolCallId: string;
  /** The caller's interrupt. */
  signal?: AbortSignal;
  /** Fires when the environment is disposed; counts as an interrupt. */
  disposeSignal: AbortSignal;
  scratchpadDir: string;
  archiveBytes: number;
  /** Time a tool gets to stop after its signal fired before it is abandoned. */
  settleMs: number;
  description?: string;
  /** Arms a tool's timeout; default `setTimeout`. Tests inject one to fire it at a chosen moment. */
  scheduleTimeout?: TimeoutScheduler;
  /** Replaces vault values in everything the tool outputs (one per call: it holds stream state). */
  redactor?: SecretRedactor;
}

/** Calls `fire` after `ms` unless the returned function is called first. */
export type TimeoutScheduler = (ms: number, fire: () => void) => () => void;

export const realTimeoutScheduler: TimeoutScheduler = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/** How a run ended, before the verdict. */
export interface RunOutcome {
  result?: ToolResult<unknown>;
  error?: string;
  timedOut: boolean;
}

/** interrupt > timeout > throw > self-report > completed. */
export function decideStopReason(o: {
  interrupted: boolean;
  timedOut: boolean;
  threw: boolean;
  selfReported?: StopReason;
}): StopReason {
  if (o.interrupted) return "aborted";
  if (o.timedOut) return "timeout";
  if (o.threw) return "failed";
  return o.selfReported ?? "completed";
}

/** The head followed by each note on its own line; `[no output]` when all is empty. */
export function composeOutput(head: string, notes: readonly string[]): string {
  let out = head;
  for (const note of notes) {
    if (note === "") continue;
    out = out === "" ? note : out.endsWith("\n") ? out + note : `${out}\n${note}`;
  }
  return out === "" ? NO_OUTPUT : out;
}

export function truncationNote(
  shown: number,
  total: number,
  archive: { ok: true; path: string; complete: boolean } | { ok: false; error: string },
): string {
  const head = `[output truncated: showing the first ${shown} of ${total} characters`;
  if (!archive.ok) return `${head}; the full output could not be saved (${archive.error})]`;
  const what = archive.complete ? "the full output is" : "the beginning of the output (archive size cap reached) is";
  return `${head}; ${what} saved at ${archive.path}]`;
}

function partial(
  toolCallId: string,
  eventType: StreamEventType,
  output: string,
  extra?: { images?: string[]; stopReason?: StopReason },
): OmniMessage {
  return modelMessage({
    type: "partial_tool_call_output",
    role: "user",
    event_type: eventType,
    output,
    images: extra?.images,
    tool_call_id: toolCallId,
    stop_reason: extra?.stopReason,
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

type Step = { kind: "next"; r: IteratorResult<string, ToolResult<unknown>> } | { kind: "throw"; error: unknown } | { kind: "abandon" };

/** Runs the tool, streaming the visible part of its output. Returns how it ended. */
async function* drive(
  plan: Extract<CallPlan, { kind: "run" }>,
  window: OutputWindow,
  opts: CloseOutOptions,
): AsyncGenerator<OmniMessage, RunOutcome> {
  const ctrl = new AbortController();
  const outside = [opts.signal, opts.disposeSignal].filter((s): s is AbortSignal => s !== undefined);
  const onOutsideAbort = (): void => ctrl.abort();
  for (const s of outside) {
    if (s.aborted) ctrl.abort();
    else s.addEventListener("abort", onOutsideAbort, { once: true });
  }
  let timedOut = false;
  const cancelTimeout = (opts.scheduleTimeout ?? realTimeoutScheduler)(plan.timeoutMs, () => {
    timedOut = true;
    ctrl.abort();
  });
  let settleTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<Step>((resolve) => {
    const arm = (): void => {
      settleTimer = setTimeout(() => resolve({ kind: "abandon" }), opts.settleMs);
    };
    if (ctrl.signal.aborted) arm();
    else ctrl.signal.addEventListener("abort", arm, { once: true });
  });

  let settled = false;
  const ctx: ToolContext =
    opts.description === undefined
      ? { toolCallId: opts.toolCallId, signal: ctrl.signal }
      : { toolCallId: opts.toolCallId, signal: ctrl.signal, description: opts.description };
  const raw = ctrl.signal.aborted ? undefined : plan.run(ctx);
  const it = raw !== undefined && opts.redactor?.active ? redactStream(raw, opts.redactor) : raw;
  try {
    if (it === undefined) {
      settled = true;
      return { timedOut };
    }
    for (;;) {
      const next: Promise<Step> = it.next().then(
        (r) => ({ kind: "next", r }),
        (error: unknown) => ({ kind: "throw", error }),
      );
      const step = await Promise.race([next, abandoned]);
      if (step.kind === "abandon") return { timedOut };
      if (step.kind === "throw") {
        settled = true;
        return { timedOut, error: errorText(step.error) };
      }
      if (step.r.done === true) {
        settled = true;
        return { timedOut, result: step.r.value };
      }
      const visible = window.push(step.r.value);
      if (visible !== "") yield partial(opts.toolCallId, "delta", visible);
    }
  } finally {
    cancelTimeout();
    clearTimeout(settleTimer);
    for (const s of outside) s.removeEventListener("abort", onOutsideAbort);
    if (!settled && it !== undefined) {
      // Abandoned, or our consumer stopped early: make sure the tool stops too.
      ctrl.abort();
      it.return({}).catch(() => undefined);
    }
  }
}

/** Runs one planned call to its complete `tool_call_output`. Never throws. */
export async function* closeOut(plan: CallPlan, opts: CloseOutOptions): AsyncGenerator<OmniMessage, void> {
  const id = opts.toolCallId;
  yield partial(id, "start", "");

  let head = "";
  const notes: string[] = [];
  let images: string[] | undefined;
  let stopReason: StopReason;

  if (plan.kind === "reject") {
    notes.push(plan.message);
    stopReason = "failed";
  } else {
    const window = new OutputWindow(plan.outputChars, opts.archiveBytes);
    const outcome = yield* drive(plan, window, opts);
    head = window.head;
    if (window.truncated) {
      const { bytes, complete } = window.archive();
      const saved = await writeArchive(opts.scratchpadDir, id, bytes);
      notes.push(truncationNote(head.length, window.totalChars, saved.ok ? { ...saved, complete } : saved));
    }
    if (outcome.result?.note !== undefined) notes.push(outcome.result.note);
    images = outcome.result?.images;
    const interrupted = opts.signal?.aborted === true || opts.disposeSignal.aborted;
    stopReason = decideStopReason({
      interrupted,
      timedOut: outcome.timedOut,
      threw: outcome.error !== undefined,
      selfReported: outcome.result?.stopReason,
    });
    if (stopReason === "aborted") notes.push(INTERRUPTED_NOTE);
    else if (stopReason === "timeout") notes.push(`[timed out after ${plan.timeoutMs} ms]`);
    else if (outcome.error !== undefined) notes.push(`[error: ${outcome.error}]`);
  }

  // Notes carry error texts and tool notes, which may quote a secret too.
  const output = composeOutput(head, opts.redactor ? notes.map((n) => opts.redactor!.redact(n)) : notes);
  const suffix = output.slice(head.length);
  const withImages = images !== undefined && images.length > 0 ? images : undefined;
  if (suffix !== "" || withImages !== undefined) {
    yield partial(id, "delta", suffix, withImages === undefined ? undefined : { images: withImages });
  }
  yield partial(id, "stop", "", { stopReason });
  yield toolCallOutput({ tool_call_id: id, output, images: withImages, stop_reason: stopReason });
}
