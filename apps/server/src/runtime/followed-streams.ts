/**
 * Streams of sessions another node runs (a cluster on one data root, runtime/trace-notices.ts):
 * this node's hub of such a session has no core Session, so nothing here writes its trace, and
 * its channel is fed by `follow`, which reads the lines the other node appended. A notice says
 * up to which position to read; a (re)start of listening or a client connecting reads to the
 * end, since notices may have been missed. Only hubs somebody listens to are followed (a hub
 * nobody listens to is brought up to the end when a client comes: `streamHub`).
 *
 * What such a stream carries is what the trace holds: every record, with its position as id.
 * What the running node streams without writing it (partials, token deltas, subagent mirrors,
 * `task_state`, approval requests) stays on that node: a client of another node gets the
 * records, and `task_state` as this node knows it.
 * Module functions over `ManagerParts`; the SessionManager's methods of the same names delegate here.
 */
import type { SessionRow } from "../db/sessions-store.js";
import type { SessionHub } from "./session-hub.js";
import type { ManagerParts } from "./session-manager-parts.js";
import type { TraceNotice } from "./trace-notices.js";

/** Whether another node may be writing the hub's trace: nothing of this node does. */
function writtenElsewhere(hub: SessionHub): boolean {
  return hub.core === undefined && hub.loading === undefined;
}

/** Notices from other nodes: each followed hub reads the lines announced. */
export function followNotices(m: Pick<ManagerParts, "hubs">, batch: readonly TraceNotice[]): void {
  for (const notice of batch) {
    const hub = m.hubs.get(notice.sessionId);
    if (hub === undefined || hub.channel.subscriberCount === 0 || !writtenElsewhere(hub)) continue;
    hub.channel.follow(notice.position);
  }
}

/** Listening (re)started: every followed hub reads to the end of its trace. */
export function followAll(m: Pick<ManagerParts, "hubs">): void {
  for (const hub of m.hubs.values()) if (hub.channel.subscriberCount > 0 && writtenElsewhere(hub)) hub.channel.follow();
}

/**
 * The hub a new stream subscribes to. In a cluster, one this node does not write is first read
 * to the end: the client may come from another node with a Last-Event-ID past what this hub
 * has sent (its notice still on the way), or the hub was not followed while nobody listened.
 */
export function streamHub(m: Pick<ManagerParts, "deps">, hub: SessionHub): SessionHub {
  if (m.deps.traceAnnouncer !== undefined && writtenElsewhere(hub)) hub.channel.follow();
  return hub;
}

/**
 * A hub of this node's: what it writes is announced to the other nodes once it is durable (its
 * writer's syncs: `announceDurable`), and what it sends of other writers of this node (a
 * catch-up after a fact recorded here) as it is sent.
 */
export function announceFrom(m: Pick<ManagerParts, "deps">, hub: SessionHub): void {
  const announcer = m.deps.traceAnnouncer;
  if (announcer === undefined) return;
  hub.channel.onAdvance = (position) => announcer.announce(hub.sessionId, position);
  hub.announceDurable = (through) => announcer.announce(hub.sessionId, through);
}

/** This node appended to a session's trace without a hub to send it (no one here listens): other nodes may. */
export function announceUnsent(m: Pick<ManagerParts, "deps" | "hubs">, row: Pick<SessionRow, "sessionId">): void {
  if (m.hubs.has(row.sessionId)) return;
  m.deps.traceAnnouncer?.announce(row.sessionId);
}

/**
 * How long notices are gathered into one projection pass: the read models' rows are not a
 * token stream, and on a shared root every node's pass competes for the projections' files.
 */
const PROJECTION_SETTLE_MS = 200;

/**
 * The read models on `/api/events` follow other nodes' writes too: notices ask the projections
 * for a background pass (the duty's holder brings the lines in, once for the cluster; every node's
 * listeners then send the rows it wrote to this node's user feed), one per PROJECTION_SETTLE_MS
 * at most, started after the first notice of a burst; notices during a pass ask for one more after it.
 */
export function projectionNudger(refresh: () => Promise<void>, report: (error: unknown) => void): () => void {
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      timer = undefined;
      running = true;
      again = false;
      refresh()
        .catch(report)
        .finally(() => {
          running = false;
          if (again) schedule();
        });
    }, PROJECTION_SETTLE_MS);
    timer.unref();
  };
  return () => {
    if (running) again = true;
    else if (timer === undefined) schedule();
  };
}
