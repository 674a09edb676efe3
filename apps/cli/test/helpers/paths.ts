// Where the repository and the built CLI are, for tests that run them as child processes.
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
export const CLI_MAIN = fileURLToPath(new URL("../../bundle/main.js", import.meta.url));
export const LAUNCHER = fileURLToPath(new URL("../../../../penguin", import.meta.url));
