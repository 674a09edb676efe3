/**
 * The "waiting for the first token" spinner, on stderr and only on a real terminal.
 *
 * nanospinner decides by itself whether it may animate from fd 1 (stdout) and CI; when it
 * thinks it may not, it prints its frame as a plain line instead. So the spinner is used
 * only when both stdout and stderr are terminals and CI is unset; otherwise this is a no-op
 * and piped output stays clean. nanospinner also installs SIGINT/SIGTERM handlers that call
 * `process.exit`, which would kill a run before it could record its `abort`: the handlers
 * it adds are removed right after `start()`, and our own Ctrl-C handling stays in charge.
 */
import { createSpinner, type Spinner } from "nanospinner";

export interface WaitIndicator {
  start(text?: string): void;
  stop(): void;
}

const NOOP: WaitIndicator = { start() {}, stop() {} };

export function createWaitIndicator(env: NodeJS.ProcessEnv = process.env): WaitIndicator {
  const usable = process.stderr.isTTY === true && process.stdout.isTTY === true && env.CI === undefined && env.TERM !== "dumb";
  if (!usable) return NOOP;
  let spinner: Spinner | undefined;
  return {
    start(text = "waiting for the model…") {
      if (spinner !== undefined) return;
      const before = { int: process.listeners("SIGINT"), term: process.listeners("SIGTERM") };
      spinner = createSpinner(text, { stream: process.stderr }).start();
      for (const l of process.listeners("SIGINT")) if (!before.int.includes(l)) process.off("SIGINT", l);
      for (const l of process.listeners("SIGTERM")) if (!before.term.includes(l)) process.off("SIGTERM", l);
    },
    stop() {
      if (spinner === undefined) return;
      spinner.clear();
      spinner.stop();
      spinner = undefined;
    },
  };
}
