// What the bundled CLI evaluates on start-up, observed with V8's own precise coverage
// (NODE_V8_COVERAGE: a call count for every function of cli-script.js, written at exit), so
// the answer is exact rather than sampled. A one-turn `penguin run` must not build the
// protocol's effect/Schema schemas (cli-build.mjs's lazy-protocol-schemas entry): their module
// initializer keeps a count of 0. A `run --resume` reads the trace back, decodes its lines,
// and so evaluates them once, on the first decode. Nor may it evaluate effect's barrel
// (`effect/dist/esm/index.js`, which would run all of effect and fast-check): the build
// imports each effect name from its own module (cli-build.mjs, deepEffectImports).
// `penguin --help` and `--version` do not load node:v8, which a run does: cached-main.js turns
// V8's checksum flag on around compiling its code cache (code-cache.ts), while --liftoff-only
// waits for a first WebAssembly compile that a plain run never makes (launch/baseline-wasm.ts;
// the coverage's script list shows which built-ins loaded).
// A one-turn run sends its request over node:http, never through the global fetch, whose
// undici Node compiles on first use (~25–35 ms of a run's start).
// A run whose system_config.yaml is unchanged takes it from the parse cache: neither the parser
// nor the schema builder runs (core's state/system-config-cache.ts), and no code of the `yaml`
// package runs at all: core and skills load it on first use (state/yaml-on-demand.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { sessionIdFrom } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

/** esbuild names each bundled module's lazy initializer after the module's path. */
const SCHEMA_MODULE = "packages/omnimessage/dist/schema.js";
const RUN_COMMAND = "apps/cli/dist/commands/run.js";
/** The initializer of effect's barrel, under whatever node_modules path pnpm gave it. */
const EFFECT_BARREL = "effect/dist/esm/index.js";
/**
 * core's system_config.yaml parser and the builder of its schema (state/system-config.ts), and
 * loadAgentState's slow path that loads them (state/agent-state.ts). The bundle's export getter
 * of the parser bears its name too: its count is the getter's and the function's.
 */
const PARSE_SYSTEM_CONFIG = "parseSystemConfig";
const BUILD_CONFIG_SCHEMA = "buildSystemConfigSchema";
const PARSE_AND_CACHE = "parseAndCache";

interface CoverageFile {
  result: { url: string; functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[] }[];
}

/** How many times the named functions of cli-script.js ran (a name ending in one of `names` counts under it), from one run's coverage folder. */
function callCounts(coverageDir: string, names: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of readdirSync(coverageDir)) {
    const coverage = JSON.parse(readFileSync(join(coverageDir, file), "utf8")) as CoverageFile;
    for (const script of coverage.result) {
      if (!script.url.endsWith("cli-script.js")) continue;
      for (const fn of script.functions) {
        const name = names.find((n) => fn.functionName === n || fn.functionName.endsWith(`/${n}`));
        if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + (fn.ranges[0]?.count ?? 0));
      }
    }
  }
  return counts;
}

/** The functions of the bundled `yaml` package (its modules' initializers included) that ran, by name, from one run's coverage folder. */
function yamlFunctionsRun(coverageDir: string): string[] {
  const ran: string[] = [];
  for (const file of readdirSync(coverageDir)) {
    const coverage = JSON.parse(readFileSync(join(coverageDir, file), "utf8")) as CoverageFile;
    for (const script of coverage.result) {
      if (!script.url.endsWith("cli-script.js")) continue;
      // esbuild names each module's wrapper after its path; the others are found by their place in it.
      const modules = script.functions.filter((fn) => /\/node_modules\/yaml\//.test(fn.functionName));
      const spans = modules.flatMap((fn) => fn.ranges.slice(0, 1));
      for (const fn of script.functions) {
        const r = fn.ranges[0];
        if (r === undefined || r.count === 0) continue;
        if (spans.some((m) => r.startOffset >= m.startOffset && r.endOffset <= m.endOffset)) ran.push(fn.functionName || "(anonymous)");
      }
    }
  }
  return ran;
}

let world: World | undefined;
const temps: string[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function runWithCoverage(args: string[], names = [SCHEMA_MODULE, RUN_COMMAND, EFFECT_BARREL]): Promise<{ code: number | null; stdout: string; stderr: string; counts: Map<string, number> }> {
  if (world === undefined) throw new Error("start the world first");
  const coverageDir = mkdtempSync(join(tmpdir(), "penguin-cli-coverage-"));
  temps.push(coverageDir);
  const r = await runCli(args, { env: { ...world.env, NODE_V8_COVERAGE: coverageDir }, cwd: world.workspace });
  return { ...r, counts: callCounts(coverageDir, names) };
}

describe("start-up of the bundled CLI", { timeout: 60_000 }, () => {
  it("a one-turn run never builds the protocol schemas nor evaluates effect's barrel; a resumed run builds the schemas when it decodes its trace", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "second answer" }] });
    const first = await runWithCoverage(["run", "-m", "say something"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("first answer\n");
    // The run command itself ran, so the coverage is of this script and this path.
    expect(first.counts.get(RUN_COMMAND)).toBe(1);
    expect(first.counts.get(SCHEMA_MODULE)).toBe(0);
    // Absent from the script, or present and never run: either way not evaluated.
    expect(first.counts.get(EFFECT_BARREL) ?? 0).toBe(0);

    const resumed = await runWithCoverage(["run", "--resume", sessionIdFrom(first.stderr), "-m", "and again"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("second answer\n");
    expect(resumed.counts.get(SCHEMA_MODULE)).toBe(1);
    // The resumed request carried the first turn, read back through the decoder.
    expect(JSON.stringify(world.kit.requests.at(-1)?.body)).toContain("first answer");
  });

  it("a run with an unchanged system_config.yaml neither parses it nor builds its schema; the run that found no cache did both", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "second answer" }] });
    const names = [RUN_COMMAND, PARSE_SYSTEM_CONFIG, BUILD_CONFIG_SCHEMA, PARSE_AND_CACHE];
    const cold = await runWithCoverage(["run", "-m", "say something"], names);
    expect(cold.code, cold.stderr).toBe(0);
    // An async function counts once per resumption (after each await), so at least once.
    expect(cold.counts.get(PARSE_AND_CACHE)).toBeGreaterThanOrEqual(1);
    expect(cold.counts.get(PARSE_SYSTEM_CONFIG)).toBeGreaterThanOrEqual(1);
    expect(cold.counts.get(BUILD_CONFIG_SCHEMA)).toBe(1);

    const warm = await runWithCoverage(["run", "-m", "say more"], names);
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stdout).toBe("second answer\n");
    expect(warm.counts.get(RUN_COMMAND)).toBe(1);
    // Absent from the coverage (never compiled) or present and never run: either way not called.
    expect(warm.counts.get(PARSE_AND_CACHE) ?? 0).toBe(0);
    expect(warm.counts.get(PARSE_SYSTEM_CONFIG) ?? 0).toBe(0);
    expect(warm.counts.get(BUILD_CONFIG_SCHEMA) ?? 0).toBe(0);
  });

  it("a warm one-turn run runs no code of the yaml package; the run that created the agent did", async () => {
    world = await startWorld({ script: [{ text: "first answer" }, { text: "second answer" }] });
    const yamlRan = async (prompt: string, expected: string): Promise<string[]> => {
      const coverageDir = mkdtempSync(join(tmpdir(), "penguin-cli-coverage-"));
      temps.push(coverageDir);
      const r = await runCli(["run", "-m", prompt], { env: { ...world!.env, NODE_V8_COVERAGE: coverageDir }, cwd: world!.workspace });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
      return yamlFunctionsRun(coverageDir);
    };
    // The first run writes the agent's commented system_config.yaml and parses it: yaml ran, so
    // the observable sees the package in this script.
    expect((await yamlRan("say something", "first answer\n")).length).toBeGreaterThan(0);
    // The warm run takes the config from the parse cache and the skills' plain front matter
    // without the parser: not one function of yaml, not even a module initializer, ran.
    expect(await yamlRan("say more", "second answer\n")).toEqual([]);
  });

  it("help and version do not load node:v8, which a run does (for the code cache's checksum flag)", async () => {
    world = await startWorld({ script: [{ text: "an answer" }] });
    const builtins = async (args: string[]): Promise<string[]> => {
      const coverageDir = mkdtempSync(join(tmpdir(), "penguin-cli-coverage-"));
      temps.push(coverageDir);
      const r = await runCli(args, { env: { ...world!.env, NODE_V8_COVERAGE: coverageDir }, cwd: world!.workspace });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      return readdirSync(coverageDir).flatMap((f) => (JSON.parse(readFileSync(join(coverageDir, f), "utf8")) as CoverageFile).result.map((s) => s.url));
    };
    for (const args of [["--help"], ["--version"], ["run", "--help"]]) expect(await builtins(args), args.join(" ")).not.toContain("node:v8");
    expect(await builtins(["run", "-m", "say something"])).toContain("node:v8");
  });

  it("a one-turn run sends its request without loading undici (the global fetch), zlib, worker_threads or readline", async () => {
    world = await startWorld({ script: [{ text: "an answer" }] });
    const coverageDir = mkdtempSync(join(tmpdir(), "penguin-cli-coverage-"));
    temps.push(coverageDir);
    const r = await runCli(["run", "-m", "say something"], { env: { ...world.env, NODE_V8_COVERAGE: coverageDir }, cwd: world.workspace });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("an answer\n");
    expect(world.kit.requests).toHaveLength(1);
    const scripts = readdirSync(coverageDir).flatMap((f) => (JSON.parse(readFileSync(join(coverageDir, f), "utf8")) as CoverageFile).result.map((s) => s.url));
    // node:http is what carried the request; undici's bundle is what fetch would have loaded.
    expect(scripts).toContain("node:http");
    expect(scripts.filter((url) => url.includes("undici"))).toEqual([]);
    expect(scripts.filter((url) => ["node:zlib", "node:worker_threads", "node:readline"].includes(url))).toEqual([]);
  });
});
