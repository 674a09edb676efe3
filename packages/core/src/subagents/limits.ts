/**
 * The subagent numbers, in one place (SPEC §4): the three tools' timeouts, their default
 * yield windows, the cap on live children, and the bound on what a detached child buffers.
 *
 * They live beside the subagent code rather than in `environment/limits.ts` because the three
 * tools exist only when a SubagentRunner is configured; the Environment's `timeoutFor` falls
 * back to `SUBAGENT_TOOL_TIMEOUTS_MS` after its own table.
 */

/** Per-tool timeouts in ms. */
export const SUBAGENT_TOOL_TIMEOUTS_MS: Readonly<Record<string, number>> = {
  run_subagent: 600_000,
  input_subagent: 600_000,
  kill_subagent: 30_000,
};

/** run_subagent waits this long for the child before leaving it running in the background. */
export const RUN_SUBAGENT_YIELD_MS = 300_000;
/** input_subagent's wait after sending a prompt. */
export const INPUT_SUBAGENT_PROMPT_YIELD_MS = 300_000;
/** input_subagent's wait when it only polls (empty prompt). */
export const INPUT_SUBAGENT_POLL_YIELD_MS = 10_000;

/** Children alive at once per parent session; idle ones are released to make room, running ones never. */
export const MAX_LIVE_SUBAGENTS = 8;

/**
 * Complete messages a child produces while no tool call of the parent is attached to it
 * (it runs in the background); they are forwarded at the next call that addresses it. The
 * oldest go first beyond this; partials are not kept at all. The child's own trace is the
 * durable record, so nothing is lost but live rendering.
 */
export const DETACHED_BUFFER_MESSAGES = 2000;
