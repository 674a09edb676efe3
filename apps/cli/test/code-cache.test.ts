// The V8 code cache of the bundled CLI (src/launch/code-cache.ts, used by bundle/main.js):
// a cache is only ever a shortcut. First the machinery on small scripts of its own, in this
// process: a missing, damaged, stale or V8-rejected cache file compiles from source and the
// script runs the same (a flipped payload byte is V8's own checksum to catch, under the flag
// code-cache.ts sets); a cache that cannot be written is skipped without an error. Then the
// real bundle, end to end, on a private copy of apps/cli/bundle (beside the original, so the
// relative paths the build writes into it still reach the packages) so the cache files other
// test files' runs write cannot interleave with this one's: `penguin run` writes
// v8-cache/run.bin, the next run keeps it, and a corrupted, stale or unwritable cache leaves the
// answer, the exit code and stderr exactly as without one. A run that set --liftoff-only for a
// fetch (baseline-wasm.ts) still writes a cache the next plain run keeps.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compileWithCache, fnv1a32Hex, readCacheFile, writeCacheFile } from "../src/launch/code-cache.js";
import { ensureBuilt } from "./helpers/build.js";
import { CLI_MAIN } from "./helpers/paths.js";
import { collectOutput, exited } from "./helpers/run-cli.js";
import { startWorld, type World } from "./helpers/world.js";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A script no other test compiles (V8 keeps an in-process cache keyed by the source text). */
function uniqueScript(): { source: string; id: string } {
  const source = `(function () { /* ${Math.random()} */ const parts = []; for (let i = 0; i < 5; i++) parts.push(i * 2); return parts.join(","); })`;
  return { source, id: createHash("sha256").update(source).digest("hex") };
}

function runScript(script: Script): string {
  return (script.runInThisContext() as () => string)();
}

/**
 * Makes and saves a cache for `source` as an earlier start would have. V8's in-process cache
 * is keyed by the source *and* the file name, so the earlier start gets a file name of its
 * own: a later compile under another name then really consumes the cache file (under the same
 * name V8 would reuse this process's compiled script and never look at the file).
 */
function saveFromEarlierStart(source: string, id: string, cacheFile: string): void {
  const earlier = compileWithCache({ source, filename: `/earlier/${Math.random()}.js`, scriptId: id, cacheFile });
  runScript(earlier.script);
  earlier.save();
}

/** Flips one bit of the byte in the middle of a cache file's V8 payload. */
function flipPayloadByte(cacheFile: string): void {
  const bytes = readFileSync(cacheFile);
  const payloadStart = bytes.indexOf(10) + 1;
  const middle = payloadStart + Math.floor((bytes.length - payloadStart) / 2);
  bytes[middle] = bytes[middle]! ^ 0x01;
  writeFileSync(cacheFile, bytes);
}

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "penguin-code-cache-"));
  temps.push(dir);
  return dir;
}

describe("compileWithCache", () => {
  it("given no cache file, when the script runs and is saved, then the file holds a valid cache for that script", () => {
    const { source, id } = uniqueScript();
    const cacheFile = join(cacheDir(), "v8-cache", "run.bin");
    const first = compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile });
    expect(first.status).toBe("missing");
    expect(runScript(first.script)).toBe("0,2,4,6,8");
    first.save();
    const read = readCacheFile(cacheFile, id);
    expect("payload" in read && read.payload.length > 0).toBe(true);
  });

  it("given a cache whose payload has a flipped byte, then V8 rejects it, the script still runs, and saving repairs it", () => {
    const { source, id } = uniqueScript();
    const cacheFile = join(cacheDir(), "run.bin");
    saveFromEarlierStart(source, id, cacheFile);
    flipPayloadByte(cacheFile);
    const damaged = compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile });
    expect(damaged.status).toBe("rejected");
    expect(runScript(damaged.script)).toBe("0,2,4,6,8");
    damaged.save();
    expect("payload" in readCacheFile(cacheFile, id)).toBe(true);
    const repaired = compileWithCache({ source, filename: "/x/next-start.js", scriptId: id, cacheFile });
    expect(repaired.status).toBe("used");
    expect(runScript(repaired.script)).toBe("0,2,4,6,8");
  });

  it("given a flipped payload byte in the caches of two scripts of other names, then V8 rejects each, while each whole cache is used", () => {
    const dir = cacheDir();
    for (const [name, filename] of [["run.bin", "/x/cli-script.js"], ["chat.bin", "/y/another-script.js"]] as const) {
      const { source, id } = uniqueScript();
      const cacheFile = join(dir, name);
      saveFromEarlierStart(source, id, cacheFile);
      const whole = readFileSync(cacheFile);
      const used = compileWithCache({ source, filename, scriptId: id, cacheFile });
      expect(used.status, name).toBe("used");
      expect(runScript(used.script), name).toBe("0,2,4,6,8");
      // The same script again, from a file with one bit flipped, under a file name this process has not compiled.
      writeFileSync(cacheFile, whole);
      flipPayloadByte(cacheFile);
      const damaged = compileWithCache({ source, filename: `${filename}.again`, scriptId: id, cacheFile });
      expect(damaged.status, name).toBe("rejected");
      expect(runScript(damaged.script), name).toBe("0,2,4,6,8");
    }
  });

  it("names a cache kept for other node flags by the FNV-1a 32-bit hash of the flags, in 8 hex digits", () => {
    // The published FNV-1a 32-bit test vectors, then the UTF-8 bytes of a non-ASCII string.
    expect(fnv1a32Hex("")).toBe("811c9dc5");
    expect(fnv1a32Hex("a")).toBe("e40c292c");
    expect(fnv1a32Hex("foobar")).toBe("bf9cf968");
    expect(fnv1a32Hex("é ü")).toBe("c6124f04");
    expect(fnv1a32Hex("--stack-size=2000")).toMatch(/^[0-9a-f]{8}$/);
  });

  it("given a truncated file, a file without a header, an empty file or a header of another format, then each is corrupt and the script runs", () => {
    const { source, id } = uniqueScript();
    const dir = cacheDir();
    const valid = join(dir, "valid.bin");
    compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile: valid }).save();
    const whole = readFileSync(valid);
    const cases: [string, Buffer][] = [
      ["truncated", whole.subarray(0, whole.length - 100)],
      ["no header", Buffer.from("just some bytes without a newline")],
      ["empty", Buffer.alloc(0)],
      ["not json", Buffer.concat([Buffer.from("{not json\n"), whole.subarray(whole.indexOf(10) + 1)])],
      ["other format", Buffer.concat([Buffer.from(`${JSON.stringify({ format: "something-else/9" })}\n`), whole.subarray(whole.indexOf(10) + 1)])],
    ];
    for (const [name, content] of cases) {
      const cacheFile = join(dir, `${name}.bin`);
      writeFileSync(cacheFile, content);
      const compiled = compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile });
      expect(compiled.status, name).toBe("corrupt");
      expect(runScript(compiled.script), name).toBe("0,2,4,6,8");
    }
  });

  it("given a cache made for another build of the script or another Node, then it is stale and the script runs from source", () => {
    const { source, id } = uniqueScript();
    const dir = cacheDir();
    const cacheFile = join(dir, "run.bin");
    compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile }).save();
    expect(compileWithCache({ source, filename: "/x/script.js", scriptId: "f".repeat(64), cacheFile }).status).toBe("stale");
    const whole = readFileSync(cacheFile);
    const newline = whole.indexOf(10);
    const header = JSON.parse(whole.subarray(0, newline).toString("utf8")) as Record<string, unknown>;
    writeFileSync(cacheFile, Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, node: "v0.0.1" })}\n`), whole.subarray(newline + 1)]));
    const other = compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile });
    expect(other.status).toBe("stale");
    expect(runScript(other.script)).toBe("0,2,4,6,8");
  });

  it("given a whole cache file whose V8 bytes belong to another script, then V8 rejects it and the script runs from source", () => {
    const target = uniqueScript();
    const other = new Script(`${uniqueScript().source}; /* longer, so the lengths differ */`, { filename: "/x/other.js" });
    runScript(other);
    const cacheFile = join(cacheDir(), "run.bin");
    writeCacheFile(cacheFile, target.id, other.createCachedData());
    const compiled = compileWithCache({ source: target.source, filename: "/x/script.js", scriptId: target.id, cacheFile });
    expect(compiled.status).toBe("rejected");
    expect(runScript(compiled.script)).toBe("0,2,4,6,8");
  });

  it("given a cache location that cannot be written, then saving does nothing, throws nothing and serializes nothing", () => {
    const { source, id } = uniqueScript();
    const dir = cacheDir();
    writeFileSync(join(dir, "not-a-folder"), "a file where the cache folder would be");
    const cacheFile = join(dir, "not-a-folder", "run.bin");
    const compiled = compileWithCache({ source, filename: "/x/script.js", scriptId: id, cacheFile });
    expect(() => compiled.save()).not.toThrow();
    expect(existsSync(cacheFile)).toBe(false);
    // Nor is a cache serialized for nothing: the bytes are asked for only once the file could be opened.
    let serialized = false;
    writeCacheFile(cacheFile, id, () => {
      serialized = true;
      return Buffer.from("never written");
    });
    expect(serialized).toBe(false);
  });
});

describe("the bundled CLI's code cache, end to end", { timeout: 120_000 }, () => {
  const bundleCopy = join(CLI_MAIN, "..", "..", `.test-bundle-${process.pid}`);
  const cacheFile = join(bundleCopy, "v8-cache", "run.bin");
  let world: World | undefined;
  let scriptId = "";

  beforeAll(async () => {
    await ensureBuilt();
    rmSync(bundleCopy, { recursive: true, force: true });
    cpSync(join(CLI_MAIN, ".."), bundleCopy, { recursive: true, filter: (path) => !path.includes("v8-cache") });
    scriptId = createHash("sha256").update(readFileSync(join(bundleCopy, "cli-script.js"))).digest("hex");
  }, 300_000);
  afterEach(async () => {
    await world?.cleanup();
    world = undefined;
  });
  afterAll(() => rmSync(bundleCopy, { recursive: true, force: true }));

  async function runOnce(answer: string, nodeFlags: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    world ??= await startWorld();
    world.kit.enqueue({ text: answer });
    const child = spawn(process.execPath, [...nodeFlags, join(bundleCopy, "main.js"), "run", "-m", "answer me"], { env: { ...world.env, ...env }, cwd: world.workspace, stdio: ["ignore", "pipe", "pipe"] });
    const out = collectOutput(child);
    const { code } = await exited(child);
    return { code, stdout: out.stdout(), stderr: out.stderr() };
  }

  /** What stderr says of a run, less the lines that differ between any two runs (the session id, the timing). */
  function stableStderr(stderr: string): string {
    return stderr
      .split("\n")
      .filter((line) => !line.startsWith("session ") && !line.startsWith("[stats]"))
      .join("\n");
  }

  it("writes run.bin on the first run, keeps it on the next, and a corrupt, stale or unwritable cache changes nothing the user sees", async () => {
    const first = await runOnce("first answer");
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("first answer\n");
    const written = readCacheFile(cacheFile, scriptId);
    expect("payload" in written).toBe(true);
    const reference = stableStderr(first.stderr);

    const kept = readFileSync(cacheFile);
    const second = await runOnce("second answer");
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("second answer\n");
    expect(readFileSync(cacheFile).equals(kept)).toBe(true);

    const corrupted = Buffer.from(kept);
    for (let i = corrupted.length - 2000; i < corrupted.length - 1000; i++) corrupted[i] = 0;
    writeFileSync(cacheFile, corrupted);
    const afterCorrupt = await runOnce("third answer");
    expect(afterCorrupt.code).toBe(0);
    expect(afterCorrupt.stdout).toBe("third answer\n");
    expect(stableStderr(afterCorrupt.stderr)).toBe(reference);
    // The header still says the payload's length is right: only V8's checksum tells the zeroed
    // bytes apart, so the file is rewritten, and the next run uses the new one as it is.
    const rewritten = readFileSync(cacheFile);
    expect(rewritten.equals(corrupted)).toBe(false);
    expect("payload" in readCacheFile(cacheFile, scriptId)).toBe(true);
    expect((await runOnce("third answer again")).stdout).toBe("third answer again\n");
    expect(readFileSync(cacheFile).equals(rewritten)).toBe(true);

    const whole = readFileSync(cacheFile);
    const newline = whole.indexOf(10);
    const header = JSON.parse(whole.subarray(0, newline).toString("utf8")) as Record<string, unknown>;
    writeFileSync(cacheFile, Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, script: "0".repeat(64) })}\n`), whole.subarray(newline + 1)]));
    const afterStale = await runOnce("fourth answer");
    expect(afterStale.code).toBe(0);
    expect(afterStale.stdout).toBe("fourth answer\n");
    expect("payload" in readCacheFile(cacheFile, scriptId)).toBe(true);

    rmSync(join(bundleCopy, "v8-cache"), { recursive: true, force: true });
    writeFileSync(join(bundleCopy, "v8-cache"), "a file where the cache folder would be");
    const unwritable = await runOnce("fifth answer");
    expect(unwritable.code).toBe(0);
    expect(unwritable.stdout).toBe("fifth answer\n");
    expect(stableStderr(unwritable.stderr)).toBe(reference);
  });

  it("keeps a cache of its own for a run under other node flags, leaving the plain one as it was", async () => {
    rmSync(join(bundleCopy, "v8-cache"), { recursive: true, force: true });
    expect((await runOnce("plain")).code).toBe(0);
    const plain = readFileSync(cacheFile);
    const flagged = await runOnce("flagged", ["--stack-size=2000"]);
    expect(flagged.code).toBe(0);
    expect(flagged.stdout).toBe("flagged\n");
    const files = readdirSync(join(bundleCopy, "v8-cache")).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^run-[0-9a-f]{8}\.bin$/);
    // The flags as cached-main.js reads them: the command line's, then NODE_OPTIONS.
    expect(files[0]).toBe(`run-${fnv1a32Hex(["--stack-size=2000", world?.env.NODE_OPTIONS ?? ""].join("\n").trim())}.bin`);
    expect(files[1]).toBe("run.bin");
    expect(readFileSync(cacheFile).equals(plain)).toBe(true);
  });

  it("writes, from a run whose fetch compiled WebAssembly (so set --liftoff-only), a cache the next plain run uses as it is", async () => {
    rmSync(join(bundleCopy, "v8-cache"), { recursive: true, force: true });
    // Proxy variables make the run send through fetch; the loopback model bypasses the proxy, so
    // that is Node's global fetch, whose undici compiles llhttp to WebAssembly (test/proxy.test.ts).
    const fetched = await runOnce("through fetch", [], { HTTP_PROXY: "http://127.0.0.1:9" });
    expect(fetched.code).toBe(0);
    expect(fetched.stdout).toBe("through fetch\n");
    const written = readFileSync(cacheFile);
    // The tiering flags were put back before the cache was made, so its flag hash is a plain start's.
    const plain = await runOnce("plain again");
    expect(plain.stdout).toBe("plain again\n");
    expect(readFileSync(cacheFile).equals(written)).toBe(true);
  });

  it("answers --help and --version from the ES module build, without writing a cache", async () => {
    rmSync(join(bundleCopy, "v8-cache"), { recursive: true, force: true });
    for (const args of [["--help"], ["--version"], ["run", "--help"]]) {
      const child = spawn(process.execPath, [join(bundleCopy, "main.js"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code, args.join(" ")).toBe(0);
      expect(stdout, args.join(" ")).toMatch(args[0] === "--version" ? /^\d+\.\d+\.\d+\n$/ : /Usage: penguin/);
    }
    expect(existsSync(join(bundleCopy, "v8-cache"))).toBe(false);
  });
});
