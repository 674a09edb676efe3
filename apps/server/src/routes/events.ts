/**
 * `GET /api/events`: the signed-in user's own stream (SSE). Named `server_event`s whose
 * data has a `type`: `hello` (sent first on every connection: who you are and the server
 * epoch; on a connection without Last-Event-ID it carries the feed's id of now, so a client
 * that hears nothing else before the server restarts still reconnects from where it began
 * and gets what the restarted server folded meanwhile; a reconnect's hello has no id, the
 * replay that follows sets it), `session_created`, `session_state` (a task started or ended),
 * `session_title`, `session_deleted`, and the read models as the projections commit them:
 * `session_row` (a sessions-projection row that changed) and `usage_totals` (its project's
 * totals), replayed from the read-model log on a reconnect the ring cannot serve (a
 * `projection_snapshot` only when the log cannot answer). Ids are
 * `<projection position>.<epoch>.<seq>`; reconnect with Last-Event-ID (runtime/user-events.ts
 * says what each kind of id gets back).
 */
import { formatSse, openSseStream } from "../http/sse.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";

export function eventsRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/api/events",
      operationId: "events.stream",
      summary: "My event stream (SSE)",
      tag: "events",
      access: "user",
      responses: { 200: { description: "text/event-stream of server_event", contentType: "text/event-stream" } },
    },
    ({ c, user }) => {
      const lastEventId = c.header("last-event-id");
      return openSseStream(
        (sink) => {
          const hello = JSON.stringify({ type: "hello", userId: user.userId, epoch: ctx.ids.epoch });
          const fresh = lastEventId === undefined || lastEventId === "";
          // The id and the subscription are taken in the same turn: nothing is published between them.
          sink.send(formatSse(fresh ? { event: "server_event", id: ctx.userEvents.currentId(), data: hello } : { event: "server_event", data: hello }));
          return ctx.userEvents.channel(user.userId).subscribe(sink, lastEventId);
        },
        { ticker: ctx.ticker, pingMs: ctx.pingMs, maxBufferedBytes: 8 * 1024 * 1024, signal: c.signal },
      );
    },
  );
}
