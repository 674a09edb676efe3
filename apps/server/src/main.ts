#!/usr/bin/env node
/**
 * Standalone entry, so the server runs before the CLI wires `penguin server` / `penguin web`:
 *
 *   node apps/server/dist/main.js [--port N] [--host H] [--root DIR] [--web] [--no-open]
 *                                     [--reindex] [--database URL] [--web-dir DIR] [--workspace-root DIR]...
 *                                     [--allowed-host NAME]... [--no-sandbox]
 *                                     [--sandbox-network]
 *
 * Parses the flags and hands over to runServerCommand; its return value is the exit code.
 */
import { parseArgs } from "node:util";
import { runServerCommand } from "./command.js";

const USAGE = "usage: main.js [--port N] [--host H] [--root DIR] [--web] [--no-open] [--reindex] [--web-dir DIR] [--workspace-root DIR]... [--allowed-host NAME]... [--no-sandbox] [--sandbox-network] [--otel-endpoint URL] [--otel-contents]";

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        root: { type: "string" },
        web: { type: "boolean", default: false },
        "no-open": { type: "boolean", default: false },
        reindex: { type: "boolean", default: false },
        database: { type: "string" },
        "web-dir": { type: "string" },
        "no-sandbox": { type: "boolean", default: false },
        "sandbox-network": { type: "boolean", default: false },
        "workspace-root": { type: "string", multiple: true },
        "allowed-host": { type: "string", multiple: true },
        "otel-endpoint": { type: "string" },
        "otel-contents": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const options: Parameters<typeof runServerCommand>[0] = {
    root: values.root,
    port: values.port,
    host: values.host,
    web: values.web,
    open: !values["no-open"],
    reindex: values.reindex,
    sandbox: { enabled: !values["no-sandbox"], network: values["sandbox-network"] },
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
  };
  if (values.database !== undefined) options.database = values.database;
  if (values["web-dir"] !== undefined) options.webDir = values["web-dir"];
  if (values["workspace-root"] !== undefined) options.workspaceRoots = values["workspace-root"];
  if (values["allowed-host"] !== undefined) options.allowedHosts = values["allowed-host"];
  if (values["otel-endpoint"] !== undefined || values["otel-contents"]) options.otel = { endpoint: values["otel-endpoint"], contents: values["otel-contents"] };
  return runServerCommand(options);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
