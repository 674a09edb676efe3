// The standalone CLI, run from source through tsx as a real child process: it prints its URL
// and base URLs, serves the script, and exits 0 on SIGTERM; usage errors exit 2.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = fileURLToPath(new URL("../src/cli.ts", import.meta.url));

function runCli(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
}

/** Collect stdout until `count` lines have arrived (or the process ends). */
function lines(child: ChildProcess, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    let text = "";
    const done = (): void => resolve(text.split("\n").filter((line) => line !== ""));
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.split("\n").length > count) done();
    });
    child.once("exit", done);
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

let child: ChildProcess | undefined;
afterEach(() => {
  if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
  child = undefined;
});

describe("penguin-testkit CLI", () => {
  it("prints its URL and base URLs, serves the script, and stops on SIGTERM", { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "testkit-cli-"));
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify([{ text: "from the cli", chunkSize: 100 }, { fixture: "gemini/google-text.chunks.txt" }]));
    child = runCli(["--script", script, "--port", "0"]);
    const printed = await lines(child, 5);

    expect(printed[0]).toMatch(/^testkit listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = printed[0]!.replace("testkit listening on ", "");
    expect(printed.slice(1)).toEqual([`openai-chat ${url}/v1`, `openai-responses ${url}/v1`, `anthropic-messages ${url}`, `gemini ${url}/v1beta`]);

    const chat = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(await chat.text()).toContain('"content":"from the cli"');
    const gemini = await fetch(`${url}/v1beta/models/g:streamGenerateContent?alt=sse`, { method: "POST", body: JSON.stringify({ contents: [] }) });
    expect(await gemini.text()).toContain("strawberry");

    child.kill("SIGTERM");
    expect(await exitCode(child)).toBe(0);
  });

  it("exits 2 with the usage when --script is missing", { timeout: 30_000 }, async () => {
    child = runCli([]);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    expect(await exitCode(child)).toBe(2);
    expect(stderr).toMatch(/--script is required[\s\S]*usage: penguin-testkit/);
  });
});
