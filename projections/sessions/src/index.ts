// @penguin/projections-sessions: one row per session, folded from its trace.
export { sessionsProjection } from "./projection.js";
export type { SessionsTables, SessionLinkRow } from "./projection.js";
export { foldSession, emptySession, TITLE_MAX } from "./fold.js";
export type { SessionRow, SessionStatus, SessionSource } from "./fold.js";
export { listSessions, countSessions, getSession } from "./queries.js";
export type { SessionListItem, SessionListFilter } from "./queries.js";
