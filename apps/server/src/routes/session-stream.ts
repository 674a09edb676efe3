/**
 * `GET /api/sessions/:id/stream`: the session's Server-Sent Events.
 *
 * Events:
 *   (default)      one OmniMessage envelope as JSON: partials, complete messages, events;
 *   server_event   `{type, …}`: `task_state {state, queued, pendingFollowUps, pendingSteering}`,
 *                  `approval_request {toolCallId, toolCall, requestedAt}`, `approval_resolved`,
 *                  `session_title`, `credentials_updated`, `task_error`, `resync_required`.
 * Ids are trace positions (runtime/stream-ids.ts): a trace record has `NNN:LLLLLL`, the line
 * it sits at in the session's files; anything else (partials, subagent messages, server
 * events) has the position of the last record before it plus `.<epoch>.<k>`. Records are sent
 * only once durable. With `Last-Event-ID` the records after that position are read back from
 * the trace, so this works across server restarts, then the partials and server events this
 * process kept since the last record, then live events; `resync_required` only when the id
 * names no position the trace has (past its end, an old `<epoch>-<seq>` id, garbage). Then,
 * without ids, the current `task_state` and every pending `approval_request`. A `: ping`
 * comment every 20 s keeps the connection open.
 * Subscribing does not load the session: a stream can wait on an idle session for free.
 * In a cluster any node serves the stream of any session: a node that does not run it sends
 * the records the running node announces, read from the trace (runtime/followed-streams.ts),
 * with the same ids; partials and the running node's server events stay on that node.
 */
import { formatSse, openSseStream } from "../http/sse.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";

export function sessionStreamRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/stream",
      operationId: "sessions.stream",
      summary: "The session's event stream (SSE), resumable with Last-Event-ID",
      tag: "sessions",
      access: "session",
      responses: { 200: { description: "text/event-stream", contentType: "text/event-stream" } },
    },
    ({ c, grant }) => {
      const hub = ctx.sessions.streamHub(grant.session);
      const lastEventId = c.header("last-event-id");
      return openSseStream(
        (sink) => {
          const unsubscribe = hub.channel.subscribe(sink, lastEventId);
          sink.send(formatSse({ event: "server_event", data: JSON.stringify(hub.taskState()) }));
          for (const p of hub.approvals.pending()) sink.send(formatSse({ event: "server_event", data: JSON.stringify({ type: "approval_request", ...p }) }));
          return unsubscribe;
        },
        { ticker: ctx.ticker, pingMs: ctx.pingMs, maxBufferedBytes: 8 * 1024 * 1024, signal: c.signal },
      );
    },
  );
}
