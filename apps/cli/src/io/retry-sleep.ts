/**
 * PENGUIN_RETRY_DELAY_SCALE: a test and debug knob that scales the engine's reconnect waits
 * (2, 4, 8, 16, 30 s). `0` makes them instant, `0.01` makes them 100 times shorter; unset
 * means the real waits. The CLI passes the result to `createAgent({ sleep })`, the seam core
 * offers for exactly this, so tests of unreachable endpoints finish in milliseconds.
 * The announced `retry_in_ms` is unchanged: only the wait itself is scaled.
 */
import type { SleepFn } from "@penguin/core";
import { UsageError } from "../cli-error.js";

export const RETRY_SCALE_ENV = "PENGUIN_RETRY_DELAY_SCALE";

export function retrySleepFromEnv(env: NodeJS.ProcessEnv = process.env): SleepFn | undefined {
  const raw = env[RETRY_SCALE_ENV];
  if (raw === undefined || raw.trim() === "") return undefined;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale < 0) {
    throw new UsageError(`${RETRY_SCALE_ENV} must be a number >= 0 (a factor on the reconnect waits), got "${raw}"`);
  }
  return function scaledSleep(ms, signal) {
    return new Promise<void>((resolve) => {
      const wait = ms * scale;
      if (signal.aborted || wait <= 0) return resolve();
      const timer = setTimeout(done, wait);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  };
}
