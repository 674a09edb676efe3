/**
 * `GET /api/sessions/:id/messages`: a session's history, paged, consistent with its stream.
 *
 *   ?tailLimit=N                 the newest N trace messages (default: all, capped at 5000)
 *   ?before=<fileIndex>:<line>&limit=N   the N messages before a position (older pages)
 *
 * Answer: `{messages, tracePosition, hasMore, state, cursor, pendingApprovals, live?}`.
 * `messages` come from the trace files (every index, oldest first), up to the last record the
 * session's stream has sent. `tracePosition` is where the oldest returned message sits (pass
 * it as `before` for the previous page). `cursor` is the id of the newest stream event this
 * answer reflects: a trace position `NNN:LLLLLL` (the last record), or that position with a
 * `.<epoch>.<k>` suffix when partials or server events were sent after it (routes/
 * session-stream.ts). While a task runs, `live` is `{cursor, fragments}`: `fragments` are the
 * streamed partials of the segments still open at `cursor`.
 *
 * Client algorithm (reload without gaps or duplicates):
 *   1. Open `GET /api/sessions/:id/stream` first and buffer its events (do not render yet).
 *   2. Fetch this route (tail). Render `messages`; if `live` is present, feed `fragments` to
 *      a PartialAggregator so the open text/tool segments continue mid-way.
 *   3. Drop buffered events whose id is at or before `cursor` (compare positions; at the same
 *      position, an id without suffix comes first, then the suffixes of one epoch by k; a
 *      suffix of another epoch counts as after). Apply the rest in order, then apply live
 *      events as they arrive. Pending approvals and the task state are in this answer too,
 *      since their events may be among the dropped ones.
 *   4. On a `resync_required` event, discard everything and start again at 1.
 * Older pages: fetch with `before=<tracePosition>` until `hasMore` is false.
 */
import { Schema } from "effect";
import { IntFromText } from "../http/schemas.js";
import { badRequest } from "../http/api-error.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { parsePosition, prepareTraceCut, readHistory } from "../services/history.js";
import { formatStreamId } from "../runtime/stream-ids.js";
import { SessionHistory } from "../contract/index.js";

const Query = Schema.Struct({
  tailLimit: Schema.optional(IntFromText(1, 5000)),
  before: Schema.optional(Schema.String),
  limit: Schema.optional(IntFromText(1, 5000)),
});

export function sessionMessageRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/api/sessions/:id/messages",
      operationId: "sessions.messages",
      summary: "History from the trace, with the live cursor while a task runs",
      tag: "sessions",
      access: "session",
      query: Query,
      responses: { 200: { description: "{messages, tracePosition, hasMore, state, cursor, pendingApprovals, live?}", schema: SessionHistory } },
    },
    async ({ grant, query }) => {
      const before = query.before === undefined ? undefined : parsePosition(query.before);
      if (query.before !== undefined && before === undefined) throw badRequest("before must be <fileIndex>:<line>", "before");
      const id = grant.session.sessionId;
      // Long lines are found and cut first, a slice per turn; the read below then skips them.
      const cut = await prepareTraceCut(ctx.traceRecords, grant.agent, id);
      // Everything below runs synchronously, so no event is sent between the trace read, the
      // cursor and the fragments: they describe the same instant.
      const hub = ctx.sessions.peek(id);
      const upTo = hub?.channel.lastDurable();
      const { page, newest } = readHistory(grant.agent, id, upTo, { tailLimit: query.tailLimit, before, limit: query.limit }, cut);
      const lastEntry = hub === undefined ? newest() : undefined;
      const cursor = hub?.channel.lastId ?? (lastEntry === undefined ? null : formatStreamId({ position: { file: lastEntry.fileIndex, line: lastEntry.line } }));
      const live = hub?.run?.log.snapshot();
      return json({
        ...page,
        state: hub?.state ?? "idle",
        cursor,
        pendingApprovals: hub?.approvals.pending() ?? [],
        ...(live === undefined ? {} : { live: { cursor, fragments: live.fragments } }),
      });
    },
  );
}
