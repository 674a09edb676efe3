// Runs the built CLI as a child process. `runCli` waits for the exit and returns code,
// stdout and stderr; `spawnCli` hands back the live child for signal and timing-free
// interaction tests (wait on testkit requests or on output, never on the clock).
import { spawn, type ChildProcess } from "node:child_process";
import { CLI_MAIN } from "./paths.js";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; stdin is closed at once when absent. */
  input?: string;
}

export function spawnCli(args: string[], options: CliOptions): ChildProcess {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin?.end(options.input ?? "");
  return child;
}

export function collectOutput(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return { stdout: () => stdout, stderr: () => stderr };
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

export async function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const child = spawnCli(args, options);
  const out = collectOutput(child);
  const { code, signal } = await exited(child);
  return { code, signal, stdout: out.stdout(), stderr: out.stderr() };
}

/** Resolves once `predicate` holds for the text collected so far (checked on each chunk). */
export function waitForOutput(stream: NodeJS.ReadableStream | null | undefined, predicate: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    if (stream === null || stream === undefined) return reject(new Error("no stream"));
    let text = "";
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      if (predicate(text)) {
        stream.off("data", onData);
        resolve(text);
      }
    };
    stream.on("data", onData);
    stream.once("end", () => reject(new Error(`stream ended before the expected output; got:\n${text}`)));
  });
}
