/**
 * One writer per session, on the SDK's side: the Agent takes a session's lease
 * (@penguin/trace lease.ts, the file `<traces>/<date>/<sid>.lease`) before it appends anything
 * to the session, and the Session lets it go when it is disposed. A session another process
 * (or another open Session of this one) runs is refused here, with `session_busy` and a
 * message naming the holder and what to do. Readers (inspect, replay's source, forks' source,
 * state, projections) take no lease.
 *
 * Kept apart from agent.ts so the Agent only says when it holds and releases.
 */
import { basename, join } from "node:path";
import { acquireLease, describeLeaseHolder, LeaseHeldError, type SessionLease } from "@penguin/trace";
import { PenguinError } from "../errors.js";
import { sessionDate } from "../state/ids.js";
import type { AgentPaths } from "../state/paths.js";

/** Where a session's lease lies: beside its trace files, in its date folder. */
export function sessionLeaseFile(paths: AgentPaths, sessionId: string): string {
  return join(paths.tracesDir, sessionDate(sessionId), `${sessionId}.lease`);
}

/** What a lease names as its holder when the host does not say (`node my-script.js`). */
export function defaultHolderCommand(): string {
  const script = process.argv[1];
  return script === undefined ? basename(process.execPath) : `${basename(process.execPath)} ${basename(script)}`;
}

/** Takes the session's lease for this process, or throws `session_busy` naming the holder. */
export function holdSession(paths: AgentPaths, sessionId: string, command: string): SessionLease {
  const file = sessionLeaseFile(paths, sessionId);
  try {
    return acquireLease(file, command);
  } catch (error) {
    if (error instanceof LeaseHeldError) throw sessionBusy(sessionId, error);
    throw error;
  }
}

/** Runs `open` with the lease held; a failure lets the lease go again. */
export async function whileHolding<T>(lease: SessionLease, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    lease.release();
    throw error;
  }
}

function sessionBusy(sessionId: string, e: LeaseHeldError): PenguinError {
  const who = describeLeaseHolder(e.holder);
  if (e.refusal === "other_host") {
    return new PenguinError(
      "session_busy",
      `session ${sessionId} is held by ${who}, which this process cannot check (another host, or a container of this one): only one process may run a session at a time, and such a lease is never taken over automatically. If that host (or container) is gone or no longer runs the session, remove ${e.file} and try again.`,
    );
  }
  if (e.refusal === "taking_over") {
    return new PenguinError("session_busy", `session ${sessionId} is being taken over right now by ${who} (its previous holder is gone); try again in a moment, or follow it with \`penguin attach ${sessionId}\`.`);
  }
  const server = e.holder.command.startsWith("penguin server") || e.holder.command.startsWith("penguin web")
    ? " A server holds a session while it has it open, and lets it go once the session has been idle for a while (30 minutes by default) or the server stops; post the task there instead."
    : "";
  return new PenguinError(
    "session_busy",
    `session ${sessionId} is being run by another process: ${who}. Only one process may run a session at a time. Follow it live with \`penguin attach ${sessionId}\`, or wait for it to finish (or stop it) and try again.${server}`,
  );
}
