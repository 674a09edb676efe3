// The parse cache of system_config.yaml (src/state/system-config-cache.ts), through loadAgentState
// and real files: a start with an unchanged file takes the cached config without loading the
// parser; anything wrong with the cache (edited text, torn, hand-edited, other generation, not a
// file, read-only or full folder) is the normal parse; a broken config is the same ConfigError
// and caches nothing; the file is 0600 and holds only what the YAML holds. The generation pin
// fails when the schema changes without a new generation, and a property test holds the cached
// value to the fresh parse for generated configs.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inspect, isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { Either, JSONSchema, Schema } from "effect";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { THINKING_LEVELS } from "@penguin/models";
import { HOOK_EVENTS } from "../../src/hooks/hook-config.js";
import { ensureAgentState, loadAgentState } from "../../src/state/agent-state.js";
import { defaultSystemConfigYaml } from "../../src/state/default-system-config.js";
import { agentPaths, DEFAULT_AGENT, DEFAULT_PROJECT, type AgentPaths } from "../../src/state/paths.js";
import { parseSystemConfig, systemConfigSchema, type SystemConfig } from "../../src/state/system-config.js";
import {
  cachedSystemConfig,
  readSystemConfigCache,
  SYSTEM_CONFIG_CACHE_GENERATION,
  writeSystemConfigCache,
} from "../../src/state/system-config-cache.js";
import { writeVault } from "../../src/state/vault.js";
import { probeSandbox } from "../../src/environment/commands/sandbox.js";
import { configErrorOf, tempDir } from "./helpers.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const TSX = createRequire(import.meta.url).resolve("tsx");

async function freshAgent(yaml?: string): Promise<AgentPaths> {
  const paths = agentPaths(await tempDir("penguin-sysconf-cache-"), DEFAULT_PROJECT, DEFAULT_AGENT);
  await ensureAgentState(paths);
  if (yaml !== undefined) await writeFile(paths.systemConfig, yaml);
  return paths;
}

type CacheFile = { generation: number; check: string; text: string; config: SystemConfig };

async function cacheJson(paths: AgentPaths): Promise<CacheFile> {
  return JSON.parse(await readFile(paths.systemConfigCache, "utf8")) as CacheFile;
}

/**
 * A cache made by the module itself for the file's text, but holding another config (max_turns
 * 7): loading it shows whether the cache was taken as it is (7) or the file parsed (its value).
 */
async function forgeCache(paths: AgentPaths): Promise<void> {
  const text = await readFile(paths.systemConfig, "utf8");
  await writeSystemConfigCache(paths.systemConfigCache, text, { ...parseSystemConfig(text, paths.systemConfig), max_turns: 7 });
}

/** The child fixture: one loadAgentState, its config and the cache folder's entries afterwards. */
function runChild(argsBefore: string[], root: string, env: NodeJS.ProcessEnv = {}): Promise<ChildRun> {
  const recorder = env.PENGUIN_TEST_MODULE_LOG === undefined ? [] : ["--import", fixture("record-modules.mjs")];
  const node = [process.execPath, "--conditions=development", "--import", TSX, ...recorder, fixture("load-agent-state.ts"), root];
  const [command, ...args] = [...argsBefore, ...node];
  const child = spawn(command!, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

type ChildRun = { code: number | null; out: string; err: string };
type ChildResult = { config: SystemConfig; cacheEntries: string[] | undefined };

function childResult(run: ChildRun): ChildResult {
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as ChildResult;
}

describe("the system_config.yaml parse cache", () => {
  it("a start with an unchanged file takes the cached config: the parser module and its schema are never loaded", async () => {
    const paths = await freshAgent();
    const dir = await tempDir("penguin-sysconf-modules-");
    const loaded = async (name: string) => {
      const log = join(dir, name);
      const result = childResult(await runChild([], paths.root, { PENGUIN_TEST_MODULE_LOG: log }));
      return { result, modules: (await readFile(log, "utf8")).split("\n").filter((url) => url !== "") };
    };
    const parser = (url: string) => /\/src\/state\/system-config\.(ts|js)$/.test(url);

    // The first start has no cache: it parses (the parser module is loaded) and writes one.
    const cold = await loaded("cold.txt");
    expect(cold.modules.some(parser)).toBe(true);
    expect(cold.result.cacheEntries).toEqual(["system_config.json"]);
    // The second start: the same config, and the module that builds the schema and runs the YAML parser never loaded.
    const warm = await loaded("warm.txt");
    expect(warm.modules.some((url) => url.endsWith("/src/state/system-config-cache.ts"))).toBe(true);
    expect(warm.modules.filter(parser)).toEqual([]);
    expect(warm.modules.filter((url) => /\/src\/state\/yaml-location\.ts$|\/src\/hooks\/hook-config\.ts$/.test(url))).toEqual([]);
    expect(warm.result.config).toStrictEqual(cold.result.config);
  });

  it("uses a cache made from the file's exact text as it is, without parsing", async () => {
    const paths = await freshAgent();
    await forgeCache(paths);
    expect((await loadAgentState(paths)).config.max_turns).toBe(7);
  });

  it("edited text is a miss: the new text is parsed and the cache rewritten for it", async () => {
    const paths = await freshAgent("system_prompt: hi\nmax_turns: 3\n");
    expect((await loadAgentState(paths)).config.max_turns).toBe(3);
    await forgeCache(paths);
    await writeFile(paths.systemConfig, "system_prompt: hi\nmax_turns: 4\n");
    expect((await loadAgentState(paths)).config.max_turns).toBe(4);
    const cache = await cacheJson(paths);
    expect(cache.text).toBe("system_prompt: hi\nmax_turns: 4\n");
    expect(cache.config.max_turns).toBe(4);
    // One byte more (a trailing space) is another text too.
    await forgeCache(paths);
    await writeFile(paths.systemConfig, "system_prompt: hi\nmax_turns: 4\n ");
    expect((await loadAgentState(paths)).config.max_turns).toBe(4);
  });

  it("a torn cache, an empty one, one that is not JSON or is a folder: the normal parse, then a whole cache", async () => {
    const paths = await freshAgent("system_prompt: hi\nmax_turns: 3\n");
    await forgeCache(paths);
    const whole = await readFile(paths.systemConfigCache, "utf8");
    for (const broken of [whole.slice(0, Math.floor(whole.length / 2)), whole.slice(0, -3), "", "\u0000\u0000", "[1,2]", "null", `${whole}x`]) {
      await writeFile(paths.systemConfigCache, broken);
      expect((await loadAgentState(paths)).config.max_turns).toBe(3);
      expect((await cacheJson(paths)).config.max_turns).toBe(3);
      await forgeCache(paths);
    }
    await rm(paths.systemConfigCache);
    await mkdir(join(paths.systemConfigCache, "inside"), { recursive: true });
    expect((await loadAgentState(paths)).config.max_turns).toBe(3);
    expect((await stat(paths.systemConfigCache)).isDirectory()).toBe(true);
  });

  it("a FIFO in the cache's place does not hang the start", async () => {
    const paths = await freshAgent("system_prompt: hi\nmax_turns: 3\n");
    await mkdir(paths.cacheDir, { recursive: true });
    const made = spawnSync("mkfifo", [paths.systemConfigCache]);
    expect(made.status, String(made.stderr)).toBe(0);
    expect((await loadAgentState(paths)).config.max_turns).toBe(3);
  });

  it("a hand-edited config in the cache is not trusted: its checksum no longer matches, so the file is parsed", async () => {
    const paths = await freshAgent("system_prompt: hi\nmax_turns: 3\n");
    await loadAgentState(paths);
    const cache = await cacheJson(paths);
    // Valid JSON, the same text and generation, one value changed: what a hand edit looks like.
    await writeFile(paths.systemConfigCache, JSON.stringify({ ...cache, config: { ...cache.config, max_turns: 9 } }));
    expect((await loadAgentState(paths)).config.max_turns).toBe(3);
    expect((await cacheJson(paths)).config.max_turns).toBe(3);
    // A changed checksum alone is a miss too.
    await writeFile(paths.systemConfigCache, JSON.stringify({ ...cache, check: "00000000", config: { ...cache.config, max_turns: 9 } }));
    expect((await loadAgentState(paths)).config.max_turns).toBe(3);
  });

  it("a cache of another generation is a miss, and is rewritten with this one", async () => {
    const paths = await freshAgent("system_prompt: hi\nmax_turns: 3\n");
    for (const generation of [SYSTEM_CONFIG_CACHE_GENERATION + 1, SYSTEM_CONFIG_CACHE_GENERATION - 1, String(SYSTEM_CONFIG_CACHE_GENERATION), undefined]) {
      await forgeCache(paths);
      const forged = await cacheJson(paths);
      await writeFile(paths.systemConfigCache, JSON.stringify({ ...forged, generation }));
      expect((await loadAgentState(paths)).config.max_turns).toBe(3);
      expect((await cacheJson(paths)).generation).toBe(SYSTEM_CONFIG_CACHE_GENERATION);
    }
  });

  it("a broken config throws the ConfigError it always did, with its line, and caches nothing, even over a warm cache", async () => {
    const broken = 'name: a\nsystem_prompt: x\nmax_turns: "x"\n';
    const paths = await freshAgent(broken);
    const cold = await configErrorOf(() => loadAgentState(paths));
    const direct = await configErrorOf(() => parseSystemConfig(broken, paths.systemConfig));
    expect(cold.message).toBe(direct.message);
    expect(cold.detail).toStrictEqual(direct.detail);
    expect(cold.detail).toMatchObject({ file: paths.systemConfig, line: 3, field: "max_turns" });
    await expect(stat(paths.systemConfigCache)).rejects.toMatchObject({ code: "ENOENT" });

    // Warm the cache with a good text, then break the file: the cache for the old text is no excuse.
    await writeFile(paths.systemConfig, "system_prompt: x\nmax_turns: 2\n");
    await loadAgentState(paths);
    const unclosed = "system_prompt: x\nmodel:\n  max_tokens: [1,\n";
    await writeFile(paths.systemConfig, unclosed);
    const warm = await configErrorOf(() => loadAgentState(paths));
    expect(warm.detail).toStrictEqual((await configErrorOf(() => parseSystemConfig(unclosed, paths.systemConfig))).detail);
    expect(warm.detail.line).toBe(4);
    expect((await cacheJson(paths)).text).toBe("system_prompt: x\nmax_turns: 2\n");
  });

  it("the file is 0600 in a 0700 folder and holds the YAML's own data: an MCP secret it had, no vault value", async () => {
    const yaml = [
      "system_prompt: x",
      "tools:",
      "  mcpServers:",
      "    - name: files",
      "      config: { command: srv, env: { FILES_TOKEN: tok-in-the-yaml-0001 } }",
      "",
    ].join("\n");
    const paths = await freshAgent(yaml);
    await writeVault(paths.vault, { DEPLOY_KEY: "vault-secret-0002" });
    const state = await loadAgentState(paths);
    expect(state.vault).toEqual({ DEPLOY_KEY: "vault-secret-0002" });
    expect((await stat(paths.systemConfigCache)).mode & 0o777).toBe(0o600);
    expect((await stat(paths.cacheDir)).mode & 0o777).toBe(0o700);
    const text = await readFile(paths.systemConfigCache, "utf8");
    expect(text).not.toContain("vault-secret-0002");
    const cache = await cacheJson(paths);
    expect(Object.keys(cache).sort()).toEqual(["check", "config", "generation", "text"]);
    expect(cache.text).toBe(yaml);
    expect(cache.config).toStrictEqual(parseSystemConfig(yaml, paths.systemConfig));
    expect(cache.config.tools.mcpServers[0]?.config).toEqual({ command: "srv", env: { FILES_TOKEN: "tok-in-the-yaml-0001" } });

    // A leftover file with loose permissions is replaced by a 0600 one, not written through.
    await writeFile(paths.systemConfigCache, "stale", { mode: 0o644 });
    await chmod(paths.systemConfigCache, 0o644);
    await loadAgentState(paths);
    expect((await stat(paths.systemConfigCache)).mode & 0o777).toBe(0o600);
    expect((await cacheJson(paths)).text).toBe(yaml);
  });

  it("leaves no temporary file: one left by a writer that died is removed by the next write", async () => {
    const paths = await freshAgent("system_prompt: hi\n");
    await mkdir(paths.cacheDir, { recursive: true });
    const dead = join(paths.cacheDir, ".system_config.json.0badc0de.tmp");
    const other = join(paths.cacheDir, "notes.tmp");
    await writeFile(dead, "half a cach");
    await writeFile(other, "not ours");
    await loadAgentState(paths);
    expect((await readdir(paths.cacheDir)).sort()).toEqual(["notes.tmp", "system_config.json"]);
  });

  it("a config JSON cannot carry exactly (-0, .inf, .nan) is not cached, and loads as parsed", async () => {
    for (const yaml of ["name: a\nsystem_prompt: x\nkernel_version: -0\n", "name: a\nsystem_prompt: x\nhooks:\n  Stop:\n    - hooks: [{ type: command, command: ./s.sh, timeout: .inf }]\n", "name: a\nsystem_prompt: x\ntools:\n  mcpServers:\n    - { name: a, config: { n: .nan } }\n"]) {
      const paths = await freshAgent(yaml);
      expect((await loadAgentState(paths)).config).toStrictEqual(parseSystemConfig(yaml, paths.systemConfig));
      await expect(stat(paths.systemConfigCache)).rejects.toMatchObject({ code: "ENOENT" });
    }
  });
});

/** What bwrap needs to build the mounts below; the tests say why they are skipped otherwise. */
const bwrap = probeSandbox();
const skipReason = bwrap.available ? "" : ` (SKIPPED: ${bwrap.reason ?? "bwrap cannot run"})`;

/**
 * Real read-only and full mounts: the test runs as root here, and root ignores chmod. The child
 * sees the host's whole tree (`--bind / /`, so a checkout or temp folder under /tmp is there as
 * it is) with only the cache folder or the data root replaced.
 */
describe.skipIf(!bwrap.available)(`the cache on a read-only or full file system${skipReason}`, () => {
  const underBwrap = (mount: string[]) => ["bwrap", "--die-with-parent", "--bind", "/", "/", ...mount, "--"];

  it("a read-only cache folder or data root: the start works and writes nothing", async () => {
    const paths = await freshAgent("system_prompt: hi\nmax_turns: 3\n");
    mkdirSync(paths.cacheDir, { recursive: true });
    const roCache = childResult(await runChild(underBwrap(["--ro-bind", paths.cacheDir, paths.cacheDir]), paths.root));
    expect(roCache.config.max_turns).toBe(3);
    expect(roCache.cacheEntries).toEqual([]);
    await rm(paths.cacheDir, { recursive: true });
    const roRoot = childResult(await runChild(underBwrap(["--ro-bind", paths.root, paths.root]), paths.root));
    expect(roRoot.config.max_turns).toBe(3);
    expect(roRoot.cacheEntries).toBeUndefined();
    // Back on a writable disk, the next start writes the cache.
    await loadAgentState(paths);
    expect((await cacheJson(paths)).config.max_turns).toBe(3);
  });

  it("a full disk: the start works and the failed write leaves no temporary file", async (ctx) => {
    // A prompt far bigger than the 4 KiB folder: the write fails part-way, with ENOSPC.
    const paths = await freshAgent(`system_prompt: ${"long prompt ".repeat(2000)}\nmax_turns: 3\n`);
    mkdirSync(paths.cacheDir, { recursive: true });
    const run = await runChild(underBwrap(["--size", "4096", "--tmpfs", paths.cacheDir]), paths.root);
    if (/unknown option|--size/i.test(run.err) && run.code !== 0) ctx.skip(`this bwrap cannot size a tmpfs: ${run.err.trim()}`);
    const full = childResult(run);
    expect(full.config.max_turns).toBe(3);
    expect(full.cacheEntries).toEqual([]);
  });
});

/** The parser files whose every rule decides what a text decodes to (filters JSON Schema cannot show, dropEmptyKeys, …). */
const PARSER_SOURCES = ["../../src/state/system-config.ts", "../../src/hooks/hook-config.ts"];

/**
 * The digest of everything a cached config depends on besides its text. Pins are never edited:
 * a changed schema gets a new generation and a new pin.
 */
const GENERATION_PINS: Record<number, string> = {
  1: "a1275979c12d86673c78feed7ab23d5f727f04f00110b79b41ee443200fc2983",
  2: "acbe40f82c68b00171cbac5fdfa8b0c8fca3794291675f0e24459805420c2e3a",
};

describe("the cache generation", () => {
  it("is pinned to the schema: a changed schema, default or parser rule needs a new generation", () => {
    const schema = systemConfigSchema();
    const decode = Schema.decodeUnknownSync(schema);
    const digest = createHash("sha256")
      .update(
        JSON.stringify({
          jsonSchema: JSONSchema.make(schema),
          defaults: [decode({ system_prompt: "" }), decode({ system_prompt: "", tools: { exec: {} }, hooks: {} })],
          sources: PARSER_SOURCES.map((file) => readFileSync(new URL(file, import.meta.url), "utf8").replace(/\r\n/g, "\n")),
        }),
      )
      .digest("hex");
    const pinned = GENERATION_PINS[SYSTEM_CONFIG_CACHE_GENERATION];
    const next = pinned === undefined ? SYSTEM_CONFIG_CACHE_GENERATION : SYSTEM_CONFIG_CACHE_GENERATION + 1;
    expect(
      pinned,
      `system_config's schema, defaults or parser (${PARSER_SOURCES.join(", ")}) changed: caches written before would be ` +
        `trusted for the old rules. Set SYSTEM_CONFIG_CACHE_GENERATION in src/state/system-config-cache.ts to ${next} and add ` +
        `\`${next}: "${digest}"\` to GENERATION_PINS in this file (never edit an old pin).`,
    ).toBe(digest);
    expect(Math.max(...Object.keys(GENERATION_PINS).map(Number)), "the generation went back below a pinned one").toBe(SYSTEM_CONFIG_CACHE_GENERATION);
  });
});

describe("the cached path against a fresh parse (property)", () => {
  /** Values JSON carries exactly, and the few it does not. */
  const special = fc.constantFrom(-0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN);
  const jsonish = fc.jsonValue({ maxDepth: 3 });
  const text = fc.string({ unit: "grapheme", maxLength: 30 });
  /** Keys of user mappings, with the ones objects treat specially. */
  const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "toString"));
  const mappingOf = (value: fc.Arbitrary<unknown>) => fc.dictionary(key, value, { maxKeys: 4 });

  /** A config as a user might write it (any key may be left out), with or without values JSON cannot carry. */
  const configArb = (withSpecials: boolean) => {
    const loose = withSpecials ? fc.oneof(jsonish, special) : jsonish;
    const hookTimeout = withSpecials ? fc.oneof(fc.double({ min: 0.5, max: 600, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)) : fc.double({ min: 0.5, max: 600, noNaN: true, noDefaultInfinity: true });
    return fc.record(
      {
        name: text,
        description: text,
        version: fc.integer({ min: 1, max: 1000 }),
        kernel_version: withSpecials ? fc.constantFrom(0, -0, 3) : fc.nat(5),
        system_prompt: text,
        max_turns: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 500 })),
        model: fc.record({ max_tokens: fc.integer({ min: 1, max: 200_000 }), thinking_level: fc.constantFrom(...THINKING_LEVELS), timeoutMs: fc.integer({ min: 1, max: 10 ** 6 }) }, { requiredKeys: [] }),
        compaction: fc.record({ max_context_length: fc.integer({ min: 1, max: 10 ** 6 }), max_session_turns: fc.constantFrom(-1, 1, 40), mode: fc.constantFrom("summarize", "discard"), prompt: text }, { requiredKeys: [] }),
        memory: fc.record({ enabled: fc.boolean(), prompt: text, workspace_prompt: text }, { requiredKeys: [] }),
        vault: fc.record({ enabled: fc.boolean(), prompt: text }, { requiredKeys: [] }),
        skills: fc.record({ enabled: fc.boolean(), prompt: text }, { requiredKeys: [] }),
        schedules: fc.record({ enabled: fc.boolean(), prompt: text }, { requiredKeys: [] }),
        tools: fc.record(
          {
            builtin: fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 10 }), description: text, parameters: mappingOf(loose) }, { requiredKeys: ["name", "description"] }), { maxLength: 3 }),
            mcpServers: fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), config: mappingOf(loose) }), { selector: (s) => s.name, maxLength: 3 }),
            exec: fc.record({ loginShell: fc.boolean() }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
        hooks: fc.dictionary(
          fc.constantFrom(...HOOK_EVENTS),
          fc.array(fc.record({ matcher: fc.constantFrom("", "*", "Bash|exec_command"), hooks: fc.array(fc.record({ type: fc.constant("command"), command: fc.string({ minLength: 1, maxLength: 10 }), timeout: hookTimeout }, { requiredKeys: ["type", "command"] }), { maxLength: 2 }) }, { requiredKeys: ["hooks"] }), { maxLength: 2 }),
          { maxKeys: 2 },
        ),
        future_key: loose,
      },
      { requiredKeys: ["system_prompt"] },
    );
  };

  /** True when a number JSON cannot carry reached the parsed config (unknown keys are dropped, so not every generated one does). */
  const carriesSpecial = (value: unknown): boolean =>
    typeof value === "number" ? !Number.isFinite(value) || Object.is(value, -0) : typeof value === "object" && value !== null && Object.values(value).some(carriesSpecial);

  it("returns, for every generated config, exactly what the fresh parse returns, or no cache at all", async () => {
    const dir = await tempDir("penguin-sysconf-prop-");
    const file = join(dir, "cache", "system_config.json");
    let cached = 0;
    let uncached = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean().chain((withSpecials) => configArb(withSpecials)), async (written) => {
        const yaml = stringify(written);
        const parsed = Either.try(() => parseSystemConfig(yaml, "generated.yaml"));
        if (Either.isLeft(parsed)) throw parsed.left;
        const fresh = parsed.right;
        await rm(file, { force: true });
        await writeSystemConfigCache(file, yaml, fresh);
        const fromCache = cachedSystemConfig(await readSystemConfigCache(file), yaml);
        if (carriesSpecial(fresh)) {
          expect(fromCache).toBeUndefined();
          uncached++;
        } else {
          // Node's strict deep equality: prototypes, -0 against 0, and keys holding undefined count; vitest's
          // toStrictEqual would compare an own key "constructor" as if it were the class.
          expect(isDeepStrictEqual(fromCache, fresh), `from the cache: ${inspect(fromCache, { depth: 8 })}`).toBe(true);
          cached++;
        }
        // Whatever the config, the cache never answers for another text.
        expect(cachedSystemConfig(await readSystemConfigCache(file), `${yaml}\n`)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    expect(cached).toBeGreaterThan(0);
    expect(uncached).toBeGreaterThan(0);
  });

  it("the default file, read through the cache, is what the parser gives", async () => {
    const yaml = defaultSystemConfigYaml("default_agent");
    const dir = await tempDir("penguin-sysconf-prop-");
    const file = join(dir, "system_config.json");
    const fresh = parseSystemConfig(yaml, "default.yaml");
    await writeSystemConfigCache(file, yaml, fresh);
    expect(cachedSystemConfig(await readSystemConfigCache(file), yaml)).toStrictEqual(fresh);
  });
});
