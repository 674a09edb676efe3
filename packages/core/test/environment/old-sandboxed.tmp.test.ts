import { runCommandsSandboxed } from "../helpers/sandbox-mode.js";
runCommandsSandboxed();
await import("./old-input.tmp.test.js");
