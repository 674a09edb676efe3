// `penguin config model add` checks what it is given before it writes, and `--check` /
// `config model test` talk to the endpoint once. Real child processes of the built CLI, the
// testkit as the model, temp data roots:
// - refused adds (a base URL that does not parse or is not http(s), an empty key, a key with
//   --no-key) exit 2 with the exact message and leave the config file byte for byte as it was
//   (or absent, on a fresh root);
// - `--no-key` saves a keyless entry that sends no key, not even one from the environment;
// - `--check` reports the latency and the model's answer; a failed check saves the entry but
//   does not make it the default unless `--force`; a misconfigured endpoint exits 2;
// - `config model test P M` runs the same check on a saved entry.
import { existsSync, readFileSync, statSync } from "node:fs";
import { readProjectConfig } from "@penguin/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const KEY = "sk-live-abcdefghijklmnop1234";
const add = (...rest: string[]): string[] => ["config", "model", "add", "--provider", "acme", "--model-id", "m1", "--client-type", "openai-chat", ...rest];

/** The file's bytes and times, to show a refused add wrote nothing. */
function snapshot(file: string): string {
  if (!existsSync(file)) return "absent";
  const s = statSync(file);
  return `${s.mtimeMs}:${s.ino}:${readFileSync(file, "utf8")}`;
}

describe("penguin config model add refuses what cannot work, and writes nothing", { timeout: 60_000 }, () => {
  const refused: Array<[string, string[], string]> = [
    [
      "a base URL that is not a URL",
      add("--base-url", "not-a-url", "--api-key", KEY),
      'error: --base-url "not-a-url" is not a URL (it needs a scheme and a host, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1); nothing was written. Type the protocol root with its scheme: --base-url https://api.example.com/v1',
    ],
    [
      "a base URL that is not http or https",
      add("--base-url", "ftp://api.acme.test/v1", "--api-key", KEY),
      'error: --base-url "ftp://api.acme.test/v1" uses ftp:, but a model endpoint is http or https (e.g. https://api.openai.com/v1); nothing was written. Type the protocol root with its scheme: --base-url https://api.example.com/v1',
    ],
    [
      "an empty key (the variable in --api-key \"$VAR\" is unset)",
      add("--base-url", "https://api.acme.test/v1", "--api-key", ""),
      'error: --api-key is empty for acme/m1 (is the variable in --api-key "$VAR" unset?); nothing was written. Give the key: --api-key <key>, or mark a local server that takes none (Ollama, vLLM) with --no-key',
    ],
    [
      "a key of spaces",
      add("--base-url", "https://api.acme.test/v1", "--api-key", "   "),
      'error: --api-key is empty for acme/m1 (is the variable in --api-key "$VAR" unset?); nothing was written. Give the key: --api-key <key>, or mark a local server that takes none (Ollama, vLLM) with --no-key',
    ],
    [
      "a key together with --no-key",
      add("--base-url", "https://api.acme.test/v1", "--api-key", KEY, "--no-key"),
      "error: --api-key and --no-key contradict each other: give the key with --api-key <key>, or --no-key for a local server that takes none, not both",
    ],
  ];

  for (const [name, args, message] of refused) {
    it(`${name}: exit 2, the exact message, the file untouched`, async () => {
      for (const fresh of [true, false]) {
        world = await startWorld(fresh ? { noModel: true } : {});
        const before = snapshot(world.configFile);
        const r = await runCli(args, { env: world.env });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout).toBe("");
        expect(r.stderr).toBe(`${message}\n`);
        expect(snapshot(world.configFile)).toBe(before);
        if (fresh) expect(before).toBe("absent");
        await world.cleanup();
        world = undefined;
      }
    });
  }

  it("a hand-edited entry whose saved base URL is broken is refused on update, naming it", async () => {
    world = await startWorld({ entry: { base_url: "localhost:11434" } });
    const before = snapshot(world.configFile);
    const r = await runCli(["config", "model", "add", "--provider", "testkit", "--model-id", "scripted-model", "--context-window", "64000"], { env: world.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: the saved base_url of testkit/scripted-model "localhost:11434" uses localhost:, but a model endpoint is http or https (e.g. https://api.openai.com/v1); nothing was written. Type the protocol root with its scheme: --base-url https://api.example.com/v1\n',
    );
    expect(snapshot(world.configFile)).toBe(before);
  });
});

describe("keyless entries", { timeout: 60_000 }, () => {
  it("--no-key saves keyless = true, and a run sends no key, not even the provider's environment variable", async () => {
    world = await startWorld({ noModel: true, script: [{ text: "local answer" }] });
    const base = world.kit.baseUrl("openai-chat");
    const r = await runCli(["config", "model", "add", "--provider", "openai", "--model-id", "local-8b", "--client-type", "openai-chat", "--base-url", base, "--no-key"], { env: world.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`added openai/local-8b (default) in ${world.configFile}\n`);
    expect(readFileSync(world.configFile, "utf8")).toMatch(/keyless = true/);
    expect(readProjectConfig(world.configFile).models[0]).toEqual({ provider: "openai", model_id: "local-8b", client_type: "openai-chat", base_url: base, keyless: true });
    const run = await runCli(["run", "-m", "hi", "--workspace", world.workspace], { env: { ...world.env, OPENAI_API_KEY: "sk-from-the-environment-0000" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("local answer\n");
    expect(world.kit.requests[0]!.headers["authorization"]).toBeUndefined();
    // Giving a key later turns the mark off again.
    const keyed = await runCli(["config", "model", "add", "--provider", "openai", "--model-id", "local-8b", "--api-key", KEY], { env: world.env });
    expect(keyed.code).toBe(0);
    expect(readProjectConfig(world.configFile).models[0]).toMatchObject({ api_key: KEY });
    expect(readProjectConfig(world.configFile).models[0]?.keyless).toBeUndefined();
  });
});

describe("--check and config model test", { timeout: 60_000 }, () => {
  it("--check reports the latency and the model's answer", async () => {
    world = await startWorld({ noModel: true, script: [{ text: "OK" }] });
    const base = world.kit.baseUrl("openai-chat");
    const r = await runCli(add("--base-url", base, "--api-key", KEY, "--check"), { env: world.env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe(`added acme/m1 (default) in ${world.configFile}`);
    expect(lines[1]).toMatch(new RegExp(`^check: ok · first token after \\d+ ms \\(${base.replace(/[.]/g, "\\.")}\\) · \\d+ ms in all · answer: "OK"$`));
    expect(world.kit.requests).toHaveLength(1);
  });

  it("a failed check saves the entry but does not make it the default; --force does", async () => {
    world = await startWorld({ noModel: true, script: [{ fault: { kind: "http", status: 500 } }, { fault: { kind: "http", status: 500 } }] });
    const base = world.kit.baseUrl("openai-chat");
    const failed = await runCli(add("--base-url", base, "--api-key", KEY, "--check"), { env: world.env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe(`added acme/m1 (not made the default: the check failed; add --force to make it the default anyway) in ${world.configFile}\n`);
    expect(failed.stderr).toMatch(new RegExp(`^error: check: failed at ${base.replace(/[.]/g, "\\.")}: acme/m1: HTTP 500`));
    let config = readProjectConfig(world.configFile);
    expect(config.models.map((m) => m.model_id)).toEqual(["m1"]);
    expect(config.default_model).toBeUndefined();

    const forced = await runCli(add("--check", "--force"), { env: world.env });
    expect(forced.code).toBe(1);
    expect(forced.stdout).toBe(`updated acme/m1 (default) in ${world.configFile}\n`);
    config = readProjectConfig(world.configFile);
    expect(config.default_model).toEqual({ provider: "acme", model_id: "m1" });
  });

  it("a check against a wrong path (HTTP 404) exits 2 naming the base URL", async () => {
    world = await startWorld({ noModel: true, script: [{ fault: { kind: "http", status: 404 } }] });
    const base = world.kit.baseUrl("openai-chat");
    const r = await runCli(add("--base-url", base, "--api-key", KEY, "--check"), { env: world.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: check: failed at ${base.replace(/[.]/g, "\\.")}: acme/m1: HTTP 404 at ${base.replace(/[.]/g, "\\.")} \\(no such endpoint\\)`));
    expect(readProjectConfig(world.configFile).default_model).toBeUndefined();
  });

  it("config model test P M checks a saved entry; an unknown pair exits 2", async () => {
    world = await startWorld({ script: [{ text: "OK" }, { fault: { kind: "http", status: 401 } }] });
    const ok = await runCli(["config", "model", "test", "testkit", "scripted-model"], { env: world.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^check: ok · first token after \d+ ms \(http:\/\/127\.0\.0\.1:\d+\/v1\) · \d+ ms in all · answer: "OK"\n$/);
    const auth = await runCli(["config", "model", "test", "testkit", "scripted-model"], { env: world.env });
    expect(auth.code).toBe(3);
    expect(auth.stderr).toMatch(/^error: check: auth at http:\/\/127\.0\.0\.1:\d+\/v1: testkit\/scripted-model: HTTP 401/);
    expect(auth.stderr).not.toContain("sk-test-secret");
    const unknown = await runCli(["config", "model", "test", "acme", "nope"], { env: world.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`error: model acme/nope is not configured in ${world.configFile} (configured: testkit/scripted-model)`);
    expect(world.kit.requests).toHaveLength(2);
  });
});
