// The subagent checkpoint scenarios once more with every session's commands (the children's
// sed -i and rm included) inside the bwrap sandbox: the workspace is bind-mounted, so the
// child's and the parent's checkpoints must see those edits as they do unsandboxed.
// Where bwrap cannot run, one skipped test says why.
import { describe, it } from "vitest";
import { runCommandsSandboxed, sandboxAvailability } from "../helpers/sandbox-mode.js";

const availability = sandboxAvailability();

if (availability.available) {
  runCommandsSandboxed();
  await import("./subagent-checkpoints.test.js");
} else {
  describe("subagent checkpoints inside the bwrap sandbox", () => {
    it.skip(`skipped: ${availability.reason ?? "bwrap cannot run here"}`, () => undefined);
  });
}
