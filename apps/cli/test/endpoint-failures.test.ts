// What `penguin run` does when the model endpoint is wrong or failing, as a new user meets it:
// the built CLI as a child process, the testkit as the model, a temp data root.
// - Configuration errors (a base URL that does not parse, an unknown host, a blocked port,
//   HTTP 404 and 501) are not retried: exit 2 at once with one message naming the base URL and
//   the commands that fix it. The wall time is measured here and printed, never asserted.
// - Transient errors (a refused connection, 5xx, 429) keep the reconnect policy, and every
//   wait is one `[retry] retrying in N s (attempt n of 6): …` line on stderr (waits are
//   instant here through PENGUIN_RETRY_DELAY_SCALE=0; the announced times are the real ones).
//   429 announces its Retry-After. Ctrl-C during a wait stops the run (exit 130).
// - After a retried turn stdout holds the final answer only; the cut-off text is on stderr,
//   marked `[retried]`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { collectOutput, exited, runCli, spawnCli, waitForOutput } from "./helpers/run-cli.js";
import { closedPort } from "./helpers/ports.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});


/** stderr without the session and stats lines: what the user reads about the failure. */
function failureLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l !== "" && !l.startsWith("session ") && !l.startsWith("[stats] "));
}

const fix = "Fix the base URL with: penguin config model add --provider testkit --model-id scripted-model --base-url <url>, then check it with: penguin config model test testkit scripted-model";

describe("penguin run against a misconfigured endpoint", { timeout: 60_000 }, () => {
  const cases: Array<{ name: string; baseUrl: (kitBase: string) => string; fault?: number; reason: (baseUrl: string) => string }> = [
    { name: "a base URL that is not a URL", baseUrl: () => "not-a-url", reason: () => `invalid base URL: "not-a-url" is not a URL (it needs a scheme and a host, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1)` },
    { name: "an unknown host", baseUrl: () => "http://no-such-host.invalid/v1", reason: (u) => `network error (ENOTFOUND): unknown host at ${u}` },
    { name: "a blocked port", baseUrl: () => "http://127.0.0.1:9/v1", reason: (u) => `network error: blocked port at ${u} (fetch never connects to reserved ports such as 9 or 6000: use another port)` },
    { name: "HTTP 404 on the endpoint", baseUrl: (b) => b, fault: 404, reason: (u) => `HTTP 404 at ${u} (no such endpoint): invalid_request_error: testkit: scripted HTTP 404` },
    { name: "HTTP 501 on the endpoint", baseUrl: (b) => b, fault: 501, reason: (u) => `HTTP 501 at ${u} (not implemented there)` },
  ];
  for (const c of cases) {
    it(`${c.name}: exit 2 at once, no retry, naming the base URL and the fix`, async () => {
      world = await startWorld({ script: c.fault === undefined ? [] : [{ fault: { kind: "http", status: c.fault } }] });
      const baseUrl = c.baseUrl(world.kit.baseUrl("openai-chat"));
      await pointModelAt(world, baseUrl);
      const started = performance.now();
      const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: { ...world.env, PENGUIN_RETRY_DELAY_SCALE: "1" } });
      const elapsed = performance.now() - started;
      console.log(`${c.name}: exit ${r.code} after ${Math.round(elapsed)} ms (real reconnect waits would be 2 s and more)`);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      const lines = failureLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]!.startsWith(`error: the model endpoint is misconfigured (testkit/scripted-model: ${c.reason(baseUrl)}`), lines[0]).toBe(true);
      expect(lines[0]).toContain(`); model testkit/scripted-model at ${baseUrl}. ${fix}`);
      expect(r.stderr).not.toContain("[retry]");
      expect(world.kit.requests).toHaveLength(c.fault === undefined ? 0 : 1);
    });
  }
});

/** Points the world's model entry at `baseUrl` (a hand edit: the file is written directly, unchecked). */
async function pointModelAt(w: World, baseUrl: string): Promise<void> {
  const { readProjectConfig, writeProjectConfig } = await import("@penguin/core");
  const config = readProjectConfig(w.configFile);
  writeProjectConfig(w.configFile, { ...config, models: config.models.map((m) => ({ ...m, base_url: baseUrl })) });
}

describe("penguin run against a failing endpoint", { timeout: 60_000 }, () => {
  it("a refused connection: one retry line per wait (2, 4, 8, 16, 30 s), then exit 1", async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    world = await startWorld({ entry: { base_url: baseUrl } });
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const why = `testkit/scripted-model: network error (ECONNREFUSED): connection refused at ${baseUrl}`;
    expect(r.stderr.split("\n").filter((l) => l.startsWith("[retry]"))).toEqual([
      `[retry] retrying in 2 s (attempt 2 of 6): ${why}`,
      `[retry] retrying in 4 s (attempt 3 of 6): ${why}`,
      `[retry] retrying in 8 s (attempt 4 of 6): ${why}`,
      `[retry] retrying in 16 s (attempt 5 of 6): ${why}`,
      `[retry] retrying in 30 s (attempt 6 of 6): ${why}`,
    ]);
    expect(r.stderr).toContain(`error: the task failed (failed after 6 attempts: ${why}); model testkit/scripted-model at ${baseUrl}`);
  });

  it("a 503 then a 429 with Retry-After: 7: the second wait is the one the provider asked for", async () => {
    world = await startWorld({ script: [{ fault: { kind: "http", status: 503 } }, { fault: { kind: "http", status: 429, retryAfter: "7" } }, { text: "finally" }] });
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("finally\n");
    const retries = r.stderr.split("\n").filter((l) => l.startsWith("[retry]"));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(/^\[retry\] retrying in 2 s \(attempt 2 of 6\): testkit\/scripted-model: HTTP 503/);
    expect(retries[1]).toMatch(/^\[retry\] retrying in 7 s \(attempt 3 of 6\): testkit\/scripted-model: HTTP 429/);
  });

  it("Ctrl-C during a reconnect wait stops the run: exit 130", async () => {
    const port = await closedPort();
    world = await startWorld({ entry: { base_url: `http://127.0.0.1:${port}/v1` } });
    // Real waits, stretched: the run sits in its first 2 s × 1000 wait until the signal.
    const child = spawnCli(["run", "-m", "hi", "--workspace", world.workspace], { env: { ...world.env, PENGUIN_RETRY_DELAY_SCALE: "1000" } });
    const out = collectOutput(child);
    await waitForOutput(child.stderr, (t) => t.includes("[retry] retrying in 2 s (attempt 2 of 6)"));
    child.kill("SIGINT");
    const { code } = await exited(child);
    expect(code).toBe(130);
    expect(out.stderr().match(/\[retry\]/g)).toHaveLength(1);
    expect(out.stderr()).toContain("[abort] stopping the task");
  });

  it("after a cut-off stream is retried, stdout holds only the final answer; the cut-off part is on stderr, marked", async () => {
    world = await startWorld({
      script: [{ text: "The first half of an answer that never", chunkSize: 4, fault: { kind: "reset", afterEvents: 6 } }, { text: "The whole answer, second time." }],
    });
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The whole answer, second time.\n");
    expect(r.stderr).toMatch(/^\[retried\] The first/m);
    expect(r.stderr).toMatch(/^\[retry\] retrying in 2 s \(attempt 2 of 6\): /m);
    expect(r.stderr.indexOf("[retried]")).toBeLessThan(r.stderr.indexOf("[retry] "));
    expect(r.stderr).not.toContain("second time");
    // --json is unchanged: envelopes only, the failed attempt's text included as recorded.
    world.kit.enqueue({ text: "Half an", chunkSize: 2, fault: { kind: "reset", afterEvents: 4 } }, { text: "json answer" });
    const json = await runCli(["run", "--json", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(json.code).toBe(0);
    for (const line of json.stdout.trim().split("\n")) expect(JSON.parse(line)).toHaveProperty("type");
  });

  it("a tool turn then a retried answer: stdout holds the final answer once, the narration and the cut-off part go to stderr", async () => {
    world = await startWorld({
      script: [
        // A file tool, not a shell command: the turn's subject is the output split, not process handling.
        { text: "Let me check.", toolCalls: [{ name: "read_file", id: "call_chk001", arguments: { file_path: "notes.txt" } }] },
        { text: "Checked.", chunkSize: 3, fault: { kind: "reset", afterEvents: 3 } },
        { text: "Checked: all good." },
      ],
    });
    writeFileSync(join(world.workspace, "notes.txt"), "all good\n");
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Checked: all good.\n");
    expect(r.stderr).toContain("Let me check.");
    expect(world.kit.requests[1]!.messages.some((m) => m.kind === "tool_result" && (m.text ?? "").includes("all good"))).toBe(true);
    expect(r.stderr).toMatch(/^\[retried\] Che/m);
  });
});
