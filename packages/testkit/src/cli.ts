#!/usr/bin/env node
/**
 * `penguin-testkit --script <file.json> [--port N] [--host H]`: run the fake model as a
 * standalone server (for test/bench/, manual runs against the CLI, other languages' tests).
 * Prints `testkit listening on <url>`, then one `<protocol> <base URL>` line per protocol,
 * reports violations on stderr, and serves until SIGINT or SIGTERM. Exit codes: 0 on a
 * signal, 2 on a usage or script error. Runs from dist or straight from source with tsx.
 */
import { parseArgs } from "node:util";
import { loadScriptFile } from "./cli-script.js";
import { WIRE_PROTOCOLS } from "./script.js";
import { startTestkit } from "./server.js";

const USAGE = "usage: penguin-testkit --script <file.json> [--port N] [--host H]\n";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      script: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.script === undefined) throw new UsageError("--script is required");
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got ${values.port}`);

  const options = { script: loadScriptFile(values.script), port, ...(values.host === undefined ? {} : { host: values.host }) };
  const kit = await startTestkit({
    ...options,
    onViolation: (violation) => process.stderr.write(`testkit violation at request #${violation.requestIndex}: ${violation.message}\n`),
  });
  process.stdout.write(`testkit listening on ${kit.url}\n`);
  for (const protocol of WIRE_PROTOCOLS) process.stdout.write(`${protocol} ${kit.baseUrl(protocol)}\n`);

  const stop = (): void => {
    void kit.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`penguin-testkit: ${message}\n${error instanceof UsageError ? USAGE : ""}`);
  process.exit(2);
});
