// Whether the suites of this test file run their commands inside the bwrap sandbox. The
// `*-sandboxed.test.ts` files switch it on and then import the command suites, so the same
// tests run once plain and once sandboxed (vitest gives every test file its own modules, so
// the switch never leaks into the plain run). The sandbox a test Environment gets mirrors what
// an agent builds: its temp root hidden, the workspace and scratchpad writable.
import { probeSandbox, type CommandSandbox, type SandboxAvailability } from "../../src/environment/commands/sandbox.js";

let sandboxed = false;

export function runCommandsSandboxed(): void {
  sandboxed = true;
}

export function commandsSandboxed(): boolean {
  return sandboxed;
}

/** Whether bwrap can run here, with the reason when not (for visible skips). */
export function sandboxAvailability(): SandboxAvailability {
  return probeSandbox();
}

export function testSandbox(input: { hiddenRoot: string; workspace: string; scratchpad: string; network?: boolean }): CommandSandbox {
  return {
    writable: [input.workspace, input.scratchpad],
    readOnly: [],
    hidden: [input.hiddenRoot],
    hiddenUnlessOnPath: [],
    masked: [],
    network: input.network === true,
  };
}
