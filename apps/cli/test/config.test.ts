// `penguin config model …` and `penguin config vault …` against a temp data root: what they
// print, what they write (read back through core), masking, the first-model-is-default rule,
// the connectivity check, and their errors.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
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

const SECRET = "sk-live-abcdefghijklmnop1234";

describe("penguin config model", { timeout: 60_000 }, () => {
  it("adds models (the first becomes the default), lists them masked, switches default and vision, removes", async () => {
    world = await startWorld({ noModel: true });
    const env = world.env;
    const add1 = await runCli(
      ["config", "model", "add", "--provider", "acme", "--model-id", "fast-1", "--client-type", "openai-chat", "--base-url", "https://api.acme.test/v1", "--api-key", SECRET, "--context-window", "64000", "--max-tokens", "4096", "--price-cache-read", "0.1", "--price-cache-write", "1", "--price-output", "2", "--no-vision"],
      { env },
    );
    expect(add1.code).toBe(0);
    expect(add1.stdout).toBe(`added acme/fast-1 (default) in ${world.configFile}\n`);
    expect(statSync(world.configFile).mode & 0o777).toBe(0o600);

    const add2 = await runCli(["config", "model", "add", "--provider", "acme", "--model-id", "big-2", "--base-url", "https://api.acme.test/v1", "--vision"], { env });
    expect(add2.stdout).toBe(`added acme/big-2 in ${world.configFile}\n`);

    let config = readProjectConfig(world.configFile);
    expect(config.default_model).toEqual({ provider: "acme", model_id: "fast-1" });
    expect(config.models[0]).toEqual({
      provider: "acme",
      model_id: "fast-1",
      client_type: "openai-chat",
      base_url: "https://api.acme.test/v1",
      api_key: SECRET,
      context_window: 64000,
      max_tokens: 4096,
      vision: false,
      pricing: { unit: "usd_per_mtok", cache_read: 0.1, cache_write: 1, output: 2 },
    });
    expect(config.models[1]?.vision).toBe(true);

    const list = await runCli(["config", "model", "list"], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^\* acme\/fast-1 .*key sk-…1234/m);
    expect(list.stdout).toMatch(/^  acme\/big-2 /m);
    expect(list.stdout).not.toContain(SECRET);
    expect(list.stdout).not.toContain("abcdefgh");

    expect((await runCli(["config", "model", "default", "--provider", "acme", "--model-id", "big-2"], { env })).code).toBe(0);
    expect((await runCli(["config", "model", "vision", "--provider", "acme", "--model-id", "big-2"], { env })).code).toBe(0);
    config = readProjectConfig(world.configFile);
    expect(config.default_model).toEqual({ provider: "acme", model_id: "big-2" });
    expect(config.vision_model).toEqual({ provider: "acme", model_id: "big-2" });
    expect((await runCli(["config", "model", "list"], { env })).stdout).toMatch(/^\* acme\/big-2 .*vision model/m);

    const rotate = await runCli(["config", "model", "add", "--provider", "acme", "--model-id", "fast-1", "--api-key", "sk-new-key-0000000009999"], { env });
    expect(rotate.stdout).toBe(`updated acme/fast-1 in ${world.configFile}\n`);
    config = readProjectConfig(world.configFile);
    expect(config.models.find((m) => m.model_id === "fast-1")).toMatchObject({ api_key: "sk-new-key-0000000009999", base_url: "https://api.acme.test/v1", context_window: 64000 });

    const removed = await runCli(["config", "model", "remove", "--provider", "acme", "--model-id", "big-2"], { env });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("removed acme/big-2 (it was the default");
    config = readProjectConfig(world.configFile);
    expect(config.models.map((m) => m.model_id)).toEqual(["fast-1"]);
    expect(config.default_model).toBeUndefined();
    expect(config.vision_model).toBeUndefined();
  });

  it("refuses what cannot be done: unknown pairs, bad client types, bad numbers, missing flags (exit 2)", async () => {
    world = await startWorld();
    const env = world.env;
    const cases: Array<[string[], string]> = [
      [["config", "model", "default", "--provider", "x", "--model-id", "y"], "model x/y is not configured"],
      [["config", "model", "remove", "--provider", "x", "--model-id", "y"], "model x/y is not configured"],
      [["config", "model", "add", "--provider", "x", "--model-id", "y", "--client-type", "grpc"], 'unknown client type "grpc"'],
      [["config", "model", "add", "--provider", "x", "--model-id", "y", "--context-window", "lots"], "argument 'lots' is invalid"],
      [["config", "model", "add", "--provider", "x"], "required option '--model-id <id>' not specified"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(message);
    }
  });

  it("add --check reports ok with the time to first token, or the error class (auth exits 3)", async () => {
    world = await startWorld({ script: [{ text: "OK" }, { fault: { kind: "http", status: 401 } }] });
    const base = world.kit.baseUrl("openai-chat");
    const ok = await runCli(["config", "model", "add", "--provider", "kit", "--model-id", "m1", "--client-type", "openai-chat", "--base-url", base, "--api-key", SECRET, "--check"], { env: world.env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`check: ok · first token after \\d+ ms \\(${base.replace(/[.]/g, "\\.")}\\)`));
    const bad = await runCli(["config", "model", "add", "--provider", "kit", "--model-id", "m2", "--client-type", "openai-chat", "--base-url", base, "--api-key", SECRET, "--check"], { env: world.env });
    expect(bad.code).toBe(3);
    expect(bad.stdout).toContain("added kit/m2");
    expect(bad.stderr).toMatch(/^error: check: auth at http:\/\/127\.0\.0\.1:\d+\/v1: .*HTTP 401/);
    expect(bad.stderr).not.toContain(SECRET);
    expect(world.kit.requests.map((r) => r.headers["authorization"])).toEqual([`Bearer ${SECRET}`, `Bearer ${SECRET}`]);
  });
});

describe("penguin config vault", { timeout: 60_000 }, () => {
  it("sets (also from stdin), lists masked, and removes secrets of an agent", async () => {
    world = await startWorld();
    const env = world.env;
    expect((await runCli(["config", "vault", "set", "--key", "GITHUB_TOKEN", "--value", "ghp_0123456789abcdefXYZ"], { env })).code).toBe(0);
    const piped = await runCli(["config", "vault", "set", "--key", "DB_PASSWORD", "--value", "-"], { env, input: "hunter2-but-longer\n" });
    expect(piped.code).toBe(0);
    const vault = join(world.root, "default_project", "agents", "default_agent", "agent_state", ".vault.toml");
    expect(statSync(vault).mode & 0o777).toBe(0o600);
    expect(readFileSync(vault, "utf8")).toContain('DB_PASSWORD = "hunter2-but-longer"');

    const list = await runCli(["config", "vault", "list"], { env });
    expect(list.stdout).toBe("DB_PASSWORD   hun…nger\nGITHUB_TOKEN  ghp…fXYZ\n");

    expect((await runCli(["config", "vault", "remove", "--key", "DB_PASSWORD"], { env })).code).toBe(0);
    expect((await runCli(["config", "vault", "list"], { env })).stdout).toBe("GITHUB_TOKEN  ghp…fXYZ\n");

    const again = await runCli(["config", "vault", "remove", "--key", "DB_PASSWORD"], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("DB_PASSWORD is not in the vault");
    const bad = await runCli(["config", "vault", "set", "--key", "1BAD", "--value", "x"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid vault key "1BAD"');

    const other = await runCli(["config", "vault", "list", "--agent-id", "helper"], { env });
    expect(other.stdout).toContain("the vault is empty");
  });
});
