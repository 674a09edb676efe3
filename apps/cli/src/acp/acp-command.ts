/**
 * `penguin acp`: PenguinHarness as an Agent Client Protocol agent over stdio, for editors
 * (Zed's `agent_servers`, JetBrains, Neovim plugins). The editor starts it and speaks
 * newline-delimited JSON-RPC on its stdin and stdout; the protocol itself is acp-agent.ts.
 *
 * stdout is the protocol channel and nothing else may reach it: `console.log` and friends
 * are pointed at stderr before anything else loads, and every line of ours goes to stderr.
 *
 * The sessions are ordinary sessions of the data root (`--root` > PENGUIN_HOME >
 * ~/.penguin/data), each with its trace and lease, so they show in `penguin sessions`, the
 * web and `penguin usage`, and `penguin run --resume` / `penguin chat --resume` go on with them
 * once the editor has closed them (or `penguin acp` has exited). Commands run in the bubblewrap
 * sandbox where it can run (as with run and chat); approvals follow `--approve` (default
 * read-only: reads run, writes and commands are asked through the editor).
 *
 * It runs until the editor closes stdin, then closes every open session and exits 0.
 */
import { Readable, Writable } from "node:stream";
import type { ExitCode } from "../exit-codes.js";
import { EXIT } from "../exit-codes.js";
import { retrySleepFromEnv } from "../io/retry-sleep.js";
import { parseApprovalMode } from "../session/approvals.js";
import { ensureWritableRoot } from "../session/data-root.js";
import { releaseLeasesOnSignals } from "../session/release-on-signal.js";
import { chooseSandbox } from "../session/sandbox-default.js";
import { cliVersion } from "../version.js";
import { buildAcpAgent } from "./acp-agent.js";

export interface AcpFlags {
  root?: string;
  projectId?: string;
  agentId?: string;
  approve?: string;
  sandbox?: boolean;
  sandboxNetwork?: boolean;
}

/** Without `--approve`: read-only tools run, writes and commands are asked through the editor. */
const DEFAULT_ACP_APPROVAL = "read-only";

/** Keeps stdout for the protocol: whatever would print there through console goes to stderr. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export async function acpCommand(flags: AcpFlags): Promise<ExitCode> {
  keepStdoutForProtocol();
  const mode = parseApprovalMode(flags.approve ?? DEFAULT_ACP_APPROVAL);
  const [sdk, { probeSandbox, resolveRoot }] = await Promise.all([import("@agentclientprotocol/sdk"), import("@penguin/core")]);
  ensureWritableRoot(resolveRoot(flags.root));
  await releaseLeasesOnSignals();
  const sandbox = chooseSandbox(flags, { probe: () => probeSandbox(), warn: (line) => process.stderr.write(`${line}\n`) });
  const agentOptions = {
    root: flags.root,
    projectId: flags.projectId,
    agentId: flags.agentId,
    sleep: retrySleepFromEnv(),
    holderCommand: "penguin acp",
    ...(sandbox === undefined ? {} : { sandbox }),
  };
  const { app, sessions } = buildAcpAgent(sdk, { agentOptions, mode, modeGiven: flags.approve !== undefined, version: cliVersion() });
  const stream = sdk.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  await connection.closed;
  await sessions.closeAll();
  return EXIT.done;
}
