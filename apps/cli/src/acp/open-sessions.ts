/**
 * The sessions an ACP connection has open: each an ordinary penguin Session (its trace, its
 * lease, its sandbox), keyed by its own session id, which is also the ACP session id, so the id
 * an editor holds is the one `penguin sessions`, the web and `penguin run --resume` show.
 *
 * Each session gets its own Agent, because the file tools' filesystem is an agent option and
 * the editor's `fs/write_text_file` needs the session id (client-files.ts). The one prompt turn
 * a session may run at a time is its AbortController here: `session/cancel` aborts it.
 */
import type { Agent, ApprovalMode, Session } from "@penguin/core";

export interface OpenSession {
  session: Session;
  agent: Agent;
  mode: ApprovalMode;
  /** The running prompt turn, if any. */
  turn?: AbortController;
}

export class OpenSessions {
  readonly #open = new Map<string, OpenSession>();

  get(sessionId: string): OpenSession | undefined {
    return this.#open.get(sessionId);
  }

  add(open: OpenSession): void {
    this.#open.set(open.session.id, open);
  }

  /** Aborts the session's turn (if any) and lets the session go: its lease is free for `penguin run --resume`. */
  async close(sessionId: string): Promise<void> {
    const open = this.#open.get(sessionId);
    if (open === undefined) return;
    this.#open.delete(sessionId);
    open.turn?.abort();
    await open.session.dispose();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((id) => this.close(id)));
  }
}

