/**
 * Following a command for a yield window: its output is handed on as it arrives, and the
 * wait ends when the command exits, the window closes, or the signal fires. With
 * `untilOutput`, the wait also ends as soon as some output has been handed on (a poll that
 * returns what there is, or waits for the next thing to happen).
 */
import type { CommandProcess } from "./command-process.js";

export interface FollowOptions {
  windowMs: number;
  signal: AbortSignal;
  untilOutput?: boolean;
}

export async function* follow(proc: CommandProcess, options: FollowOptions): AsyncGenerator<string, void> {
  const deadline = Date.now() + options.windowMs;
  for (;;) {
    const text = proc.drain();
    if (text !== "") {
      yield text;
      if (options.untilOutput === true) return;
    }
    if (!proc.running) {
      const rest = proc.drain();
      if (rest !== "") yield rest;
      return;
    }
    const left = deadline - Date.now();
    if (options.signal.aborted || left <= 0) return;
    await proc.waitForChange(left, options.signal);
  }
}
