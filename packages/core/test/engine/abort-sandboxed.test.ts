// The abort scenarios once more with the sessions' commands inside the bwrap sandbox: an
// abort mid-tool must stop and reap the sandboxed process group as it does unsandboxed.
// Where bwrap cannot run, one skipped test says why.
import { describe, it } from "vitest";
import { runCommandsSandboxed, sandboxAvailability } from "../helpers/sandbox-mode.js";

const availability = sandboxAvailability();

if (availability.available) {
  runCommandsSandboxed();
  await import("./abort.test.js");
} else {
  describe("abort inside the bwrap sandbox", () => {
    it.skip(`skipped: ${availability.reason ?? "bwrap cannot run here"}`, () => undefined);
  });
}
