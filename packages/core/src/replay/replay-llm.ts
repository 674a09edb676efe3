/**
 * ReplayLLM: the model boundary of a replay. It implements the same LLMInterface as the
 * gateway client, so the engine above it runs unchanged, and answers request k with the
 * assistant turn the recording has for request k: the very envelopes of the trace, so
 * provider fidelity (signatures, encrypted reasoning) comes back byte for byte.
 *
 * Before answering it checks the request: a compaction request where a turn was recorded
 * (or the reverse) and, for completed turns, the context (history + new input) against the
 * recorded one, with the replay's own identities written back first. The first mismatch is
 * kept as `contextMismatch` for the verdict; the answer is still the recorded one, so the
 * trace comparison can name the record that differs.
 *
 * Texts and thinking are streamed as partials (`pace` ms between pieces; 0 for none), so a
 * renderer paints the replay exactly as it paints a live run. Partials never reach a trace.
 * Steering recorded with request k+1 is queued through `steer` while request k is answered,
 * so the engine delivers it at the same turn boundary it did live.
 */
import {
  isCompleteModel,
  type OmniMessage,
  type TokenCounts,
  type ToolDefinition,
} from "@penguin/omnimessage";
import { modelMessage } from "@penguin/omnimessage";
import type { LLMInterface, LLMOutcome, StreamGenerateInput } from "../interfaces.js";
import { firstDifference, type Identities } from "./compare.js";
import type { RecordedRequest } from "./plan.js";
import type { RecordSequencer } from "./sequencer.js";

export interface ReplayLLMOptions {
  requests: RecordedRequest[];
  contextWindow: number | "unknown";
  ids: Identities;
  /** Milliseconds between streamed pieces of text; 0 streams at once. */
  pace?: number;
  /** Keeps the records in the recorded order (see sequencer.ts). */
  sequencer?: RecordSequencer;
  /** Queue steering on the running task (late-bound: the session is built after the LLM). */
  steer?: (text: string) => void;
}

const PIECE = 12;

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += PIECE) out.push(text.slice(i, i + PIECE));
  return out;
}

/** A pause between streamed pieces that ends early (and leaves no listener behind) on abort. */
function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export class ReplayLLM implements LLMInterface {
  readonly #options: ReplayLLMOptions;
  #next = 0;
  #lastUsage: TokenCounts | undefined;
  /** The first request whose context or kind differed from the recording. */
  contextMismatch: { request: number; what: string } | undefined;
  steer: ((text: string) => void) | undefined;

  constructor(options: ReplayLLMOptions) {
    this.#options = options;
    this.steer = options.steer;
  }

  get lastUsage(): TokenCounts | undefined {
    return this.#lastUsage;
  }

  get contextWindow(): number | "unknown" {
    return this.#options.contextWindow;
  }

  /** Requests answered so far. */
  get answered(): number {
    return this.#next;
  }

  setTools(_tools: ToolDefinition[]): void {
    // The recorded answers do not depend on the tool list; the trace comparison checks it.
  }

  #mismatch(request: number, what: string): void {
    this.contextMismatch ??= { request, what };
  }

  #check(recorded: RecordedRequest, input: StreamGenerateInput, sent: OmniMessage[]): void {
    const isCompaction = input.commit === false;
    if (isCompaction !== recorded.compaction) {
      this.#mismatch(recorded.index, `request ${recorded.index + 1} is a ${isCompaction ? "compaction" : "turn"}, the recording has a ${recorded.compaction ? "compaction" : "turn"}`);
      return;
    }
    if (recorded.context === undefined) return;
    const payloads = (ms: readonly OmniMessage[]) => ms.map((m) => m.payload);
    const replayed = JSON.parse(this.#options.ids.restore(JSON.stringify(payloads(sent)))) as unknown;
    const difference = firstDifference(payloads(recorded.context), replayed, "context");
    if (difference !== undefined) this.#mismatch(recorded.index, `the context of request ${recorded.index + 1} differs: ${difference}`);
  }

  async *streamGenerate(input: StreamGenerateInput): AsyncGenerator<OmniMessage, LLMOutcome> {
    this.#lastUsage = undefined;
    const recorded = this.#options.requests[this.#next];
    if (recorded === undefined) {
      this.#mismatch(this.#next, `request ${this.#next + 1} was not in the recording (it has ${this.#options.requests.length})`);
      return { status: "failed", permanent: true, errorMessage: `replay: the recording has no request ${this.#next + 1}` };
    }
    this.#next += 1;
    // The context the replayed session's fold hands over, as the live adapter sends it.
    this.#check(recorded, input, [...input.history.mapToArray((m) => m), ...input.newMessages.filter(isCompleteModel)]);
    const upcoming = this.#options.requests[this.#next];
    if (upcoming !== undefined && !upcoming.compaction) for (const text of upcoming.steering) this.steer?.(text);

    const pace = this.#options.pace ?? 0;
    for (const [j, m] of recorded.produced.entries()) {
      await this.#options.sequencer?.waitFor(recorded.producedAt[j]! - 1, input.signal);
      if (input.signal?.aborted) return { status: "aborted" };
      if (m.type !== "model_msg") continue;
      const p = m.payload;
      if (p.type === "text" || p.type === "thinking") {
        const kind = p.type === "text" ? "partial_text" : "partial_thinking";
        const body = p.type === "text" ? p.text : p.thinking;
        const field = p.type === "text" ? "text" : "thinking";
        yield modelMessage({ type: kind, role: "assistant", event_type: "start", [field]: "" } as never);
        for (const piece of pieces(body)) {
          await wait(pace, input.signal);
          yield modelMessage({ type: kind, role: "assistant", event_type: "delta", [field]: piece } as never);
        }
        yield modelMessage({ type: kind, role: "assistant", event_type: "stop", [field]: "", ...(p.stop_reason ? { stop_reason: p.stop_reason } : {}) } as never);
      } else if (pace > 0) await wait(pace * 4, input.signal);
      // The recorded envelope itself, with a fresh timestamp: fidelity untouched.
      yield { ...m, timestamp: new Date().toISOString() };
    }

    const end = recorded.end;
    // Live, whatever was recorded before request_end (approvals, fast tools) happened while
    // the response was still arriving.
    if (recorded.endAt !== undefined) await this.#options.sequencer?.waitFor(recorded.endAt - 1, input.signal);
    if (end === undefined) return { status: "aborted" };
    if (end.status === "completed") {
      this.#lastUsage = recorded.usage;
      return { status: "completed" };
    }
    const outcome: LLMOutcome = { status: end.status };
    if (end.error_message !== undefined) outcome.errorMessage = end.error_message;
    if (end.retry_in_ms === undefined && end.status !== "aborted") outcome.permanent = true;
    else if (end.retry_in_ms !== undefined) outcome.retryAfterMs = end.retry_in_ms;
    return outcome;
  }
}
