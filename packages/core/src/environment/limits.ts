/**
 * The Environment's numbers, in one place: output and archive caps, process caps, kill grace
 * and the per-tool timeouts. Values are the reference product's (SPEC §4); `EnvironmentConfig`
 * may override each one, which is how tests use small values instead of sleeping.
 */

export interface EnvironmentLimits {
  /** Characters of a tool's output the model sees; the head is kept, the rest archived. */
  outputChars: number;
  /** Bytes of a truncated output kept in its archive file. */
  archiveBytes: number;
  /** Commands running at once. */
  maxProcesses: number;
  /** Output of a command not yet read by the model; the oldest is dropped beyond this. */
  unreadBufferBytes: number;
  /** Wait between SIGTERM and SIGKILL when a process group is stopped. */
  killGraceMs: number;
}

export const DEFAULT_LIMITS: EnvironmentLimits = {
  outputChars: 16_000,
  archiveBytes: 8 * 1024 * 1024,
  maxProcesses: 64,
  unreadBufferBytes: 1024 * 1024,
  killGraceMs: 1000,
};

/** Tools whose own output cap differs from `outputChars`. */
export const TOOL_OUTPUT_CHARS: Readonly<Record<string, number>> = {
  read_file: 64_000,
};

/** Per-tool timeouts in ms (SPEC §4); tools not listed (MCP tools) get the default. */
export const TOOL_TIMEOUTS_MS: Readonly<Record<string, number>> = {
  read_file: 30_000,
  edit_file: 30_000,
  write_file: 30_000,
  exec_command: 120_000,
  input_command: 130_000,
  kill_command: 30_000,
  read_image: 60_000,
  describe_image: 90_000,
};

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** Lower bound of every yield window; the upper one is the tool's timeout minus this margin. */
export const MIN_YIELD_MS = 250;
export const YIELD_TIMEOUT_MARGIN_MS = 1000;

/** A yield window clamped to [250, timeout − 1000]; the lower bound wins when they cross. */
export function clampYield(requested: number, timeoutMs: number, ceiling = Number.POSITIVE_INFINITY): number {
  const upper = Math.min(ceiling, timeoutMs - YIELD_TIMEOUT_MARGIN_MS);
  return Math.max(MIN_YIELD_MS, Math.min(requested, upper));
}

export function resolveLimits(overrides: Partial<EnvironmentLimits> | undefined): EnvironmentLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
