/**
 * Call scopes: how a subagent tool call reaches the parent's stream and approvals.
 *
 * A builtin tool only yields text (tool.ts); the close-out turns that into the call's
 * output. The subagent tools must also put whole OmniMessages on the parent's stream: the
 * `subagent` pointer (traced, not streamed) and the child's messages with `origin` (streamed,
 * not traced: ToolBatch and the trace writer apply those rules). They also need the parent's
 * ApproveFn, which children inherit.
 *
 * So the Environment opens a scope per call (`CallScopes.during`), keyed by the tool call id
 * (unique within a session): the scope holds the call's `approve` and an inbox. A tool finds
 * its scope by `ctx.toolCallId` and `emit`s into the inbox; `during` interleaves the inbox with
 * the close-out stream. The inbox is flushed before every close-out message, so everything a
 * tool emitted before returning precedes its output. Once the call's stream ends the scope is
 * gone and `emit` answers false: the caller keeps the message elsewhere or drops it.
 */
import type { OmniMessage } from "@penguin/omnimessage";
import type { ApproveFn } from "../interfaces.js";

export interface CallScope {
  /** The parent's approval function for this call (children inherit it). */
  readonly approve: ApproveFn | undefined;
  /** Put a message on the parent's stream during this call; false once the call has ended. */
  emit(m: OmniMessage): boolean;
}

/** A queue with one waiting reader, closed when its call ends. */
class Inbox {
  #items: OmniMessage[] = [];
  #wake: (() => void) | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;

  push(m: OmniMessage): boolean {
    if (this.#closed) return false;
    this.#items.push(m);
    const wake = this.#wake;
    this.#wake = undefined;
    this.#ready = undefined;
    wake?.();
    return true;
  }

  take(): OmniMessage[] {
    const out = this.#items;
    this.#items = [];
    return out;
  }

  /** Settles when something is pushed (one shared promise until then). */
  ready(): Promise<void> {
    if (this.#items.length > 0) return Promise.resolve();
    this.#ready ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#ready;
  }

  close(): void {
    this.#closed = true;
    this.#items = [];
  }
}

type Next = { from: "main"; step: IteratorResult<OmniMessage, void> } | { from: "inbox" };

/** Yields `main` with the inbox's messages interleaved, each batch ahead of the next main message. */
async function* interleave(main: AsyncGenerator<OmniMessage, void>, inbox: Inbox): AsyncGenerator<OmniMessage, void> {
  let fromMain: Promise<Next> | undefined;
  let fromInbox: Promise<Next> | undefined;
  let done = false;
  try {
    for (;;) {
      fromMain ??= main.next().then((step): Next => ({ from: "main", step }));
      fromInbox ??= inbox.ready().then((): Next => ({ from: "inbox" }));
      const next = await Promise.race([fromMain, fromInbox]);
      for (const m of inbox.take()) yield m;
      if (next.from === "inbox") {
        fromInbox = undefined;
        continue;
      }
      fromMain = undefined;
      if (next.step.done === true) {
        done = true;
        return;
      }
      yield next.step.value;
    }
  } finally {
    // Our consumer stopped early: stop the call too (the close-out ends the tool).
    if (!done) await main.return(undefined);
  }
}

export class CallScopes {
  #scopes = new Map<string, { approve: ApproveFn | undefined; inbox: Inbox }>();

  /** The scope of a running call, if the Environment opened one. */
  get(toolCallId: string): CallScope | undefined {
    const scope = this.#scopes.get(toolCallId);
    if (scope === undefined) return undefined;
    return { approve: scope.approve, emit: (m) => scope.inbox.push(m) };
  }

  /** Runs a call's stream with its scope open. */
  async *during(
    toolCallId: string,
    approve: ApproveFn | undefined,
    stream: AsyncGenerator<OmniMessage, void>,
  ): AsyncGenerator<OmniMessage, void> {
    const inbox = new Inbox();
    const scope = { approve, inbox };
    this.#scopes.set(toolCallId, scope);
    try {
      yield* interleave(stream, inbox);
    } finally {
      if (this.#scopes.get(toolCallId) === scope) this.#scopes.delete(toolCallId);
      inbox.close();
    }
  }
}
