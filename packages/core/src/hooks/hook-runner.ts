/**
 * Running one hook command: `bash -c <command>` with the hook's JSON input on stdin, stdout and
 * stderr kept apart (stdout may carry a JSON answer, stderr is what exit code 2 feeds back), and
 * a time limit after which the whole process group is killed.
 *
 * With the session's sandbox the command runs in bwrap with the session's mount table
 * (sandbox.ts `bwrapArguments`, the same description its commands and file tools obey) and the
 * sandbox's environment allowlist: a hook sees what the session's commands see, no more. bwrap
 * runs with `--die-with-parent`, so killing its group on timeout ends the namespace and every
 * process the hook started in it.
 *
 * Never throws: a spawn failure is an `error` result with the reason.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { signalGroup } from "../environment/commands/process-group.js";
import { bwrapArguments, DEFAULT_BWRAP, type CommandSandbox } from "../environment/commands/sandbox.js";

/** Output beyond this many characters per stream is cut (a hook's answer is small). */
const MAX_STREAM_CHARS = 64_000;

/**
 * No startup files: bash reads ~/.bashrc even for `-c` when its stdin is a socket (node's pipes
 * are), taking it for a remote shell; a hook's stderr must be the hook's own.
 */
const BASH = ["--noprofile", "--norc", "-c"];

export interface HookProcessInput {
  command: string;
  /** The JSON document written to the hook's stdin. */
  stdin: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  sandbox?: CommandSandbox;
  signal?: AbortSignal;
}

export type HookProcessResult =
  | { kind: "exited"; code: number; stdout: string; stderr: string }
  | { kind: "timeout"; stdout: string; stderr: string }
  | { kind: "aborted"; stdout: string; stderr: string }
  | { kind: "spawn-failed"; error: string };

export function runHookProcess(input: HookProcessInput): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    const args =
      input.sandbox === undefined
        ? { file: "bash", argv: [...BASH, input.command] }
        : { file: input.sandbox.bwrapPath ?? DEFAULT_BWRAP, argv: [...bwrapArguments(input.sandbox, input.cwd, input.env), "--", "bash", ...BASH, input.command] };
    let child;
    try {
      child = spawn(args.file, args.argv, { cwd: input.cwd, env: input.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      resolve({ kind: "spawn-failed", error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const out = { stdout: "", stderr: "" };
    for (const [name, stream] of [["stdout", child.stdout], ["stderr", child.stderr]] as const) {
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        if (out[name].length < MAX_STREAM_CHARS) out[name] = (out[name] + decoder.write(chunk)).slice(0, MAX_STREAM_CHARS);
      });
      stream.on("error", () => undefined);
    }
    let ended: "timeout" | "aborted" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const killGroup = (): void => {
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    };
    // Past the limit: a hook still running timed out; one that exited but left a job holding
    // its pipes is done, and the job goes.
    const stop = (why: "timeout" | "aborted"): void => {
      if (ended !== undefined) return;
      if (exit === undefined) ended = why;
      killGroup();
    };
    const timer = setTimeout(() => stop("timeout"), input.timeoutMs);
    const onAbort = (): void => stop("aborted");
    input.signal?.addEventListener("abort", onAbort, { once: true });
    let failed: string | undefined;
    child.on("error", (err) => {
      failed = err.message;
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
    });
    // `close` comes once the process exited and both pipes ended: everything it wrote is read.
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      const status = exit ?? { code, signal };
      if (failed !== undefined && status.code === null && status.signal === null) resolve({ kind: "spawn-failed", error: failed });
      else if (ended !== undefined) resolve({ kind: ended, ...out });
      else resolve({ kind: "exited", code: status.code ?? 128, ...out });
    });
    child.stdin.on("error", () => undefined); // EPIPE: the hook did not read its input
    child.stdin.end(input.stdin);
  });
}
