/**
 * Session and workspace identifiers.
 *
 * A session id is `session-YYYY-MM-DD-HH-mm-ss-<8hex>` in local time, so ids sort by start
 * time and the trace folder `traces/<yyyy-mm-dd>/` is the id's own date. Temporary
 * workspaces are `tmp-<8hex>`. Randomness and the clock are parameters for tests.
 */
import { randomBytes } from "node:crypto";

export const SESSION_ID = /^session-(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-([0-9a-f]{8})$/;

const pad = (n: number) => String(n).padStart(2, "0");

/** Local calendar date `YYYY-MM-DD`. */
export function localDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function hex8(): string {
  return randomBytes(4).toString("hex");
}

export function newSessionId(now: Date = new Date(), suffix: string = hex8()): string {
  const time = `${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return `session-${localDate(now)}-${time}-${suffix}`;
}

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** The trace date folder of a session: the date inside its id. */
export function sessionDate(sessionId: string): string {
  const m = SESSION_ID.exec(sessionId);
  if (!m) throw new Error(`not a session id: "${sessionId}" (expected session-YYYY-MM-DD-HH-mm-ss-<8hex>)`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

export function newTmpWorkspaceName(suffix: string = hex8()): string {
  return `tmp-${suffix}`;
}
