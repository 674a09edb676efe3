// The official MCP conformance suite (@modelcontextprotocol/conformance, its `client` scenarios)
// run against our MCP client (client-under-test.ts, McpHub over Streamable HTTP). Each scenario
// is the suite's own process with its own server; the test prints the pass/fail list, so CI's
// output carries it, and requires the scenarios our client is known to pass. The others are
// listed with why they fail (KNOWN_FAILURES): a change that makes one pass shows up as a
// failure here too, so the list stays true. Scenarios scored on timing are printed only.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const SUITE = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");
const CLIENT = fileURLToPath(new URL("./client-under-test.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");

/** The suite's client scenarios without OAuth (our MCP client has no OAuth flow). */
const SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];

/** Why a scenario fails today; every other scenario must pass. */
const KNOWN_FAILURES: Record<string, string> = {
  // conformance 0.1.9 (the last release that runs on Node 20: 0.1.10+ import fs.globSync) serves
  // this scenario from one SDK Server for every stateless request; with SDK 1.32 the second POST
  // answers 500 "Already connected to a transport", before our client can call the tool.
  tools_call: "the suite's own test server fails its second request (conformance 0.1.9 with SDK 1.32)",
  "elicitation-sep1034-client-defaults": "our MCP client declares no elicitation capability (a session has no one to ask mid-call)",
};

/**
 * Reported, not required: the suite judges sse-retry by how many milliseconds the client waits
 * before reconnecting (our client, the SDK's transport, honours the `retry` field and passes on
 * an idle machine), and a test here never depends on wall time.
 */
const TIMING_DEPENDENT = new Set(["sse-retry"]);

const work = mkdtempSync(join(tmpdir(), "penguin-mcp-conformance-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE, "client", "--scenario", scenario, "--timeout", "20000", "--command", `${process.execPath} --conditions=development --import ${TSX} ${CLIENT}`], {
      cwd: work,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("MCP conformance: client scenarios", () => {
  it("runs the suite's client scenarios against our client and prints the pass/fail list", { timeout: 240_000 }, async () => {
    const results: { scenario: string; passed: boolean; summary: string }[] = [];
    for (const scenario of SCENARIOS) {
      const { output } = await runScenario(scenario);
      const passed = /OVERALL: PASSED/.test(output);
      results.push({ scenario, passed, summary: /Passed: \d+\/\d+[^\n]*/.exec(output)?.[0] ?? "no result" });
    }
    const lines = results.map((r) => `${r.passed ? "PASS" : "FAIL"} ${r.scenario}: ${r.summary}${r.passed ? "" : ` — ${KNOWN_FAILURES[r.scenario] ?? (TIMING_DEPENDENT.has(r.scenario) ? "timing-dependent on a busy machine" : "unexpected")}`}`);
    console.log(`MCP conformance (client scenarios, @modelcontextprotocol/conformance 0.1.9):\n${lines.join("\n")}`);
    const judged = results.filter((r) => !TIMING_DEPENDENT.has(r.scenario));
    expect(Object.fromEntries(judged.map((r) => [r.scenario, r.passed]))).toEqual(Object.fromEntries(judged.map((r) => [r.scenario, KNOWN_FAILURES[r.scenario] === undefined])));
  });
});
