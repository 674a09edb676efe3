// The errors a user will hit, each as one clear `error: …` line on stderr with its exit
// code: configuration and usage problems exit 2, an unreachable endpoint exits 1 after the
// engine's retries (instant here through PENGUIN_RETRY_DELAY_SCALE=0).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { readProjectConfig, writeProjectConfig } from "@penguin/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { closedPort } from "./helpers/ports.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;

/** Empty when a read-only bind mount can be made here (as root); else why the case is skipped. */
const readOnlySkip = (() => {
  if (process.getuid?.() !== 0) return " (skipped: a read-only bind mount needs root)";
  try {
    execFileSync("mount", ["--version"], { stdio: "pipe" });
    return "";
  } catch {
    return " (skipped: no mount command here)";
  }
})();
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});


function oneErrorLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  return lines[0]!;
}

describe("errors a user will hit", { timeout: 60_000 }, () => {
  it("no model configured: exit 2 and the exact command to add one", async () => {
    world = await startWorld({ noModel: true });
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(2);
    const line = oneErrorLine(r.stderr);
    expect(line).toContain(`no model is configured in ${world.configFile}`);
    expect(line).toContain("penguin config model add --provider <provider> --model-id <model>");
    expect(r.stdout).toBe("");
  });

  it("models configured but no default: exit 2, naming them and the exact command that picks one", async () => {
    world = await startWorld({ script: [{ text: "picked" }] });
    const config = readProjectConfig(world.configFile);
    delete config.default_model;
    writeProjectConfig(world.configFile, config);
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(2);
    const line = oneErrorLine(r.stderr);
    expect(line).not.toContain("no model is configured");
    expect(line).toContain(`no default model is set in ${world.configFile} (configured: testkit/scripted-model)`);
    const pick = /Pick one with: (penguin config model default --provider \S+ --model-id \S+)/.exec(line)?.[1];
    expect(pick).toBe("penguin config model default --provider testkit --model-id scripted-model");
    // The command it names is one the CLI takes, and after it the same run works.
    expect((await runCli(pick!.split(" ").slice(1), { env: world.env })).code).toBe(0);
    const again = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("picked");
  });

  it("the first model added to a table without a default becomes the default", async () => {
    world = await startWorld({ noModel: true, script: [{ text: "first one" }] });
    const add = (provider: string, model: string, url: string) =>
      runCli(["config", "model", "add", "--provider", provider, "--model-id", model, "--client-type", "openai-chat", "--base-url", url, "--api-key", "sk-test-0123456789"], { env: world!.env });
    expect((await add("testkit", "scripted-model", world.kit.baseUrl("openai-chat"))).stdout).toContain("(default)");
    expect((await add("other", "m", "https://example.invalid/v1")).stdout).not.toContain("(default)");
    expect(readProjectConfig(world.configFile).default_model).toEqual({ provider: "testkit", model_id: "scripted-model" });
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.stdout).toContain("first one");
  });

  it("half a model pair: exit 2", async () => {
    world = await startWorld();
    const r = await runCli(["run", "-m", "hi", "--provider", "testkit", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(2);
    expect(oneErrorLine(r.stderr)).toContain("give both --provider and --model-id, or neither");
    expect(world.kit.requests).toHaveLength(0);
  });

  it("a model pair that is not configured: exit 2, naming how to add it", async () => {
    world = await startWorld();
    const r = await runCli(["run", "-m", "hi", "--provider", "openai", "--model-id", "gpt-x", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(2);
    expect(oneErrorLine(r.stderr)).toContain("model openai/gpt-x is not configured");
  });

  it("an unknown session id: exit 2", async () => {
    world = await startWorld();
    const r = await runCli(["run", "--resume", "session-2026-01-01-00-00-00-deadbeef", "-m", "hi"], { env: world.env });
    expect(r.code).toBe(2);
    expect(oneErrorLine(r.stderr)).toContain("no session session-2026-01-01-00-00-00-deadbeef");
    const malformed = await runCli(["run", "--resume", "yesterday", "-m", "hi"], { env: world.env });
    expect(malformed.code).toBe(2);
    expect(oneErrorLine(malformed.stderr)).toContain('"yesterday" is not a session id');
  });

  it("a workspace that does not exist: exit 2", async () => {
    world = await startWorld();
    const missing = join(world.workspace, "no-such-dir");
    const r = await runCli(["run", "-m", "hi", "--workspace", missing], { env: world.env });
    expect(r.code).toBe(2);
    expect(oneErrorLine(r.stderr)).toContain(`workspace ${missing} does not exist`);
  });

  it("an endpoint that refuses connections: exit 1 after the engine's retries, without waiting for real", async () => {
    const port = await closedPort();
    world = await startWorld({ entry: { base_url: `http://127.0.0.1:${port}/v1` } });
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/\[retry\] /g)).toHaveLength(5);
    expect(r.stderr).toMatch(/\(attempt 6 of 6\): /);
    expect(r.stderr).toMatch(new RegExp(`error: the task failed \\(failed after 6 attempts: .*(ECONNREFUSED|network error).*\\); model testkit/scripted-model at http://127\\.0\\.0\\.1:${port}/v1`));
  });

  it("a mistyped option is named with the nearest option, before any missing required one", async () => {
    world = await startWorld();
    const cases: Array<[string[], string, string]> = [
      [["run", "--mesage", "hi"], "unknown option '--mesage'", "(Did you mean --message?)"],
      [["config", "model", "add", "--provider", "x", "--modle-id", "y"], "unknown option '--modle-id'", "(Did you mean --model-id?)"],
      [["run", "-m", "x", "--worksapce", "."], "unknown option '--worksapce'", "(Did you mean --workspace?)"],
    ];
    for (const [args, typo, nearest] of cases) {
      const r = await runCli(args, { env: world.env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).not.toContain("required option");
      expect(r.stderr, args.join(" ")).toContain(typo);
      expect(r.stderr, args.join(" ")).toContain(nearest);
    }
    expect(world.kit.requests).toHaveLength(0);
  });

  it("bad flag values and combinations: exit 2 with one line", async () => {
    world = await startWorld();
    const cases: Array<[string[], string]> = [
      [["run", "-m", "x", "--approve", "maybe"], 'unknown approval mode "maybe"'],
      [["run", "-m", "x", "--thinking", "deep"], 'unknown thinking level "deep"'],
      [["run", "-m", "   "], "the prompt is empty"],
      [["run"], "required option '-m, --message <text>' not specified"],
      [["run", "-m", "x", "--bogus"], "unknown option '--bogus'"],
      [["frobnicate"], "unknown command 'frobnicate'"],
      [["run", "-m", "x", "--project-id", "Bad-Id"], 'invalid project id "Bad-Id"'],
    ];
    for (const [args, message] of cases) {
      const r = await runCli([...args, "--workspace", world.workspace], { env: world.env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr.split("\n")[0], args.join(" ")).toContain(message);
    }
    const scale = await runCli(["run", "-m", "x", "--workspace", world.workspace], { env: { ...world.env, PENGUIN_RETRY_DELAY_SCALE: "fast" } });
    expect(scale.code).toBe(2);
    expect(oneErrorLine(scale.stderr)).toContain("PENGUIN_RETRY_DELAY_SCALE must be a number");
    expect(world.kit.requests).toHaveLength(0);
  });

  it("a broken project config: exit 2 naming the file and the field", async () => {
    world = await startWorld();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(world.configFile, '[[models]]\nprovider = "x"\nmodel_id = 42\n');
    const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
    expect(r.code).toBe(2);
    const line = oneErrorLine(r.stderr);
    expect(line).toContain(world.configFile);
    expect(line).toContain("model_id");
  });

  it(`a read-only data root: exit 1 with one line saying read-only and naming it, no model request${readOnlySkip}`, async ({ skip }) => {
    if (readOnlySkip !== "") skip();
    world = await startWorld();
    execFileSync("mount", ["--bind", world.root, world.root]);
    try {
      execFileSync("mount", ["-o", "remount,bind,ro", world.root]);
      const r = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: world.env });
      expect(r.code).toBe(1);
      const line = oneErrorLine(r.stderr);
      expect(line).toContain(`the data root ${world.root} is on a read-only file system`);
      expect(line).not.toContain("internal error");
      expect(world.kit.requests).toHaveLength(0);
    } finally {
      execFileSync("umount", ["-l", world.root]);
    }
  });
});
