/**
 * A CLI session's title, recorded in its trace as `session_title` the way the server records
 * one: once per session, the first prompt's fallback title (core's `fallbackTitle`). Every
 * reader (the server's lists, `penguin sessions`, the fold) then finds it in the trace.
 *
 * Recorded when the first task starts, before its first record, so a session killed mid-task
 * keeps its title. The CLI does not ask the model for a generated title: that would be one
 * more model request per `penguin run`, paid on every one-shot task (the server generates
 * titles only for sessions that have none, so a CLI session opened there keeps this one).
 */
import type { Session } from "@penguin/core";

/** Record the session's title from `prompt` unless its trace already has one (a resumed or titled session). */
export async function recordTitleOnce(session: Session, prompt: string): Promise<void> {
  if (session.state.title !== undefined) return;
  // Core is loaded by now (the session is open): the import costs nothing at start-up.
  const { fallbackTitle } = await import("@penguin/core");
  const title = fallbackTitle(prompt);
  if (title !== "") session.recordTitle(title);
}
