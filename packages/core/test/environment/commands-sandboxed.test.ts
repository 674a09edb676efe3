// The command suites (exec_command, input_command, kill_command, background commands) once
// more, with every command inside the bwrap sandbox: streaming, exit codes, stdin, Ctrl-C,
// timeouts, process-group kills and the reaping of left-behind jobs must behave exactly as
// they do unsandboxed. Where bwrap cannot run, one skipped test says why.
import { describe, it } from "vitest";
import { runCommandsSandboxed, sandboxAvailability } from "../helpers/sandbox-mode.js";

const availability = sandboxAvailability();

if (availability.available) {
  runCommandsSandboxed();
  await import("./exec-command.test.js");
  await import("./input-command.test.js");
  await import("./kill-command.test.js");
  await import("./background.test.js");
} else {
  describe("command suites inside the bwrap sandbox", () => {
    it.skip(`skipped: ${availability.reason ?? "bwrap cannot run here"}`, () => undefined);
  });
}
