/**
 * The names a project or an agent folder may have in a data root. Defined beside the trace
 * layout rather than in core, because readers of a data root below the engine (the projections
 * runner and its rebuild worker, which must not load all of core for one pattern) list trace
 * folders by the same rule core uses to create them.
 */

/** Project and agent ids: lowercase, start with a letter, 2–64 chars. */
export const PROJECT_OR_AGENT_ID = /^[a-z][a-z0-9_]{1,63}$/;
