#!/usr/bin/env node
// The `penguin-testkit` command: a file that exists in the source tree, so `pnpm install` on a
// fresh clone links it without a "Failed to create bin" warning per dependent package (the
// compiled dist/cli.js only exists after the build). It runs the built CLI, or says how to build it.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write("penguin-testkit is not built yet: run `npx tsc -b packages/testkit` (or ./penguin once) in the repository\n");
  process.exit(2);
}
await import(cli.href);
