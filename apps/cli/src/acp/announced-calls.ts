/**
 * Tool calls the editor has been told about in this turn. The engine asks for approval as soon
 * as a call is complete, while the stream that carries the call to us may still be on its way
 * (the engine does not wait for its reader), so a permission request could reach the editor
 * before the `tool_call` update it refers to. ACP editors show the call first and the question
 * on it; so the question for one of the session's own calls waits until its `tool_call` update
 * has been sent (or the turn is cancelled). A subagent's calls are never announced (their
 * messages stay inside run_subagent), so their questions do not wait.
 */
export class AnnouncedCalls {
  readonly #sent = new Set<string>();
  readonly #waiting = new Map<string, (() => void)[]>();

  /** The `tool_call` update of `toolCallId` has been sent. */
  mark(toolCallId: string): void {
    this.#sent.add(toolCallId);
    for (const resolve of this.#waiting.get(toolCallId) ?? []) resolve();
    this.#waiting.delete(toolCallId);
  }

  /** Resolves once `toolCallId` has been announced, or at once when `signal` aborts. */
  wait(toolCallId: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.#sent.has(toolCallId) || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.#waiting.get(toolCallId) ?? [];
      list.push(resolve);
      this.#waiting.set(toolCallId, list);
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  }
}
