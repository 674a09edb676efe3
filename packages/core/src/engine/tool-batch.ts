/**
 * ToolBatch: the tool calls of one model response, from approval to output.
 *
 * - Approvals are asked one call at a time, in call order (a promise chain), while the model
 *   stream goes on: the stream never waits for a human.
 * - The command policy is checked before the host: a hit is `forbidden` and the host is not
 *   asked. No approve function means every call is denied; a throwing one means `deny`.
 * - Approved calls run at once and concurrently; their fragments stream as they come.
 * - Outputs are collected by id and handed back in call order when the batch settles.
 * - After `close()` (the run was aborted) nothing more is emitted: late outputs are dropped,
 *   pending approvals are abandoned, and the caller fills the gaps with placeholders.
 */
import {
  approvalRequested,
  approvalDecision,
  isEvent,
  isModel,
  isPartial,
  modelMessage,
  type OmniMessage,
  type ToolCallOutputPayload,
  type ToolCallPayload,
} from "@penguin/omnimessage";
import type { ApprovalResult, ApproveFn, EnvironmentInterface, PolicyCheck } from "../interfaces.js";
import { DENIED_BY_POLICY, DENIED_BY_USER } from "@penguin/trace";

export interface ToolBatchDeps {
  env: EnvironmentInterface;
  approve: ApproveFn | undefined;
  policy: PolicyCheck | undefined;
  signal: AbortSignal;
  /** Deliver a message: traced (when traceable) and, unless `stream` is false, streamed. */
  emit: (m: OmniMessage, stream?: boolean) => void;
}

/** `p`, or "aborted" if the signal fires first. The abort listener is removed either way. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export class ToolBatch {
  readonly calls: ToolCallPayload[] = [];
  readonly outputs = new Map<string, ToolCallOutputPayload>();
  readonly #deps: ToolBatchDeps;
  readonly #tasks: Promise<void>[] = [];
  #chain: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(deps: ToolBatchDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.calls.length;
  }

  /** Queue a complete tool call: approval in order, then execution. */
  add(call: ToolCallPayload): void {
    this.calls.push(call);
    const approved = this.#chain.then(() => this.#decide(call));
    this.#chain = approved.then(() => undefined);
    this.#tasks.push(approved.then((allowed) => (allowed ? this.#execute(call) : undefined)));
  }

  /** Wait until every call has its output, or the signal aborts. True when all settled. */
  async settle(): Promise<boolean> {
    const r = await raceAbort(Promise.all(this.#tasks), this.#deps.signal);
    return r !== "aborted";
  }

  /** Stop emitting. Returns once running executions have observed the abort and ended. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#tasks);
  }

  /** Outputs in call order; calls without one get `placeholder` (not emitted, not traced). */
  outputsInOrder(placeholder: string): OmniMessage[] {
    return this.calls.map((c) => {
      const out = this.outputs.get(c.tool_call_id);
      return modelMessage(
        out ?? { type: "tool_call_output", role: "user", tool_call_id: c.tool_call_id, output: placeholder, stop_reason: "aborted" },
      );
    });
  }

  #emit(m: OmniMessage, stream = true): void {
    if (!this.#closed) this.#deps.emit(m, stream);
  }

  #record(out: ToolCallOutputPayload): void {
    if (this.#closed) return;
    this.outputs.set(out.tool_call_id, out);
    this.#deps.emit(modelMessage(out));
  }

  async #ask(call: ToolCallPayload): Promise<ApprovalResult | "aborted"> {
    const { approve, signal } = this.#deps;
    if (approve === undefined) return "deny";
    // The Human is about to be asked: a fact of the session (a reload shows the open
    // question), traced but not streamed (the host is the one asked).
    this.#emit(approvalRequested({ tool_call_id: call.tool_call_id, name: call.name }), false);
    const answer = approve(call, { signal }).then(
      (r): ApprovalResult => (r === "allow" || r === "deny" || r === "forbidden" ? r : "deny"),
      (): ApprovalResult => "deny",
    );
    return raceAbort(answer, signal);
  }

  async #decide(call: ToolCallPayload): Promise<boolean> {
    if (this.#closed || this.#deps.signal.aborted) return false;
    const hit = this.#deps.policy?.(call);
    if (hit !== undefined) {
      this.#emit(approvalDecision("forbidden", call.tool_call_id, { policyRule: hit.rule }));
      this.#record({ type: "tool_call_output", role: "user", tool_call_id: call.tool_call_id, output: DENIED_BY_POLICY, stop_reason: "aborted" });
      return false;
    }
    const decision = await this.#ask(call);
    if (decision === "aborted" || this.#closed) return false;
    this.#emit(approvalDecision(decision, call.tool_call_id));
    if (decision === "allow") return true;
    this.#record({
      type: "tool_call_output",
      role: "user",
      tool_call_id: call.tool_call_id,
      output: decision === "forbidden" ? DENIED_BY_POLICY : DENIED_BY_USER,
      stop_reason: "aborted",
    });
    return false;
  }

  async #execute(call: ToolCallPayload): Promise<void> {
    const { env, signal, approve } = this.#deps;
    try {
      for await (const m of env.executeTool({ toolCall: call, signal, approve })) {
        if (isModel(m, "tool_call_output") && m.origin === undefined) this.#record(m.payload);
        else if (isEvent(m, "subagent") && m.origin === undefined) this.#emit(m, false);
        else if (isPartial(m) || m.origin !== undefined || m.type === "event_msg") this.#emit(m);
      }
    } catch (error) {
      // The Environment must not throw; if it does, the model still gets an output.
      this.#record({
        type: "tool_call_output",
        role: "user",
        tool_call_id: call.tool_call_id,
        output: `tool execution failed inside the harness: ${String(error)}`,
        stop_reason: "failed",
      });
    }
    if (!this.outputs.has(call.tool_call_id) && !this.#closed && !signal.aborted) {
      this.#record({
        type: "tool_call_output",
        role: "user",
        tool_call_id: call.tool_call_id,
        output: "tool ended without an output",
        stop_reason: "failed",
      });
    }
  }
}
