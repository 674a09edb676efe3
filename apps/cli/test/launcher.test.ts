// The ./penguin launcher. First the README's quick start, end to end: `./penguin demo` with
// no model at all, then `./penguin config model add …` and `./penguin run -m "…"` against a
// testkit entry in a temp PENGUIN_HOME.
// Then the README's keyless recipe against the scripted model, run as written. Then its
// install/build logic, hermetically: a copy of the script in a temp tree whose
// `npx` and `npm` (fakes on PATH) and `apps/cli/scripts/cli-build.mjs` (a stand-in) record
// their calls, with file times set explicitly (never slept for), covering a fresh clone, an
// up-to-date tree, an edited source, a newer lockfile, help that never builds the web app,
// and a failed build.
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { LAUNCHER, REPO } from "./helpers/paths.js";
import { closedPort } from "./helpers/ports.js";
import { cleanEnv, startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
const temps: string[] = [];
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("./penguin (README quick start)", { timeout: 60_000 }, () => {
  it("configures a model and runs a task end to end", async () => {
    world = await startWorld({ noModel: true, script: [{ text: "Hello from the quick start." }] });
    const add = await run(
      LAUNCHER,
      ["config", "model", "add", "--provider", "testkit", "--model-id", "quick", "--client-type", "openai-chat", "--base-url", world.kit.baseUrl("openai-chat"), "--api-key", "sk-quick-start-000000"],
      world.env,
      world.workspace,
    );
    // (stderr may show a rebuild when sources changed since the suite's build; stdout may not.)
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^added testkit\/quick \(default\) in /);
    const r = await run(LAUNCHER, ["run", "-m", "Say hello"], world.env, world.workspace);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello from the quick start.\n");
    expect(r.stderr).toMatch(/session session-[\w-]+ · testkit\/quick · /);
    expect(world.kit.requests[0]!.messages).toContainEqual(expect.objectContaining({ role: "user", text: "Say hello" }));
  });
});

describe("./penguin demo (the README's first command)", { timeout: 60_000 }, () => {
  it("replays the demo session with no model configured and no model server, and exits 0", async () => {
    world = await startWorld({ noModel: true });
    const demo = await run(LAUNCHER, ["demo", "--fast"], world.env, world.workspace);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain("replay identical to the recording");
    expect(demo.stdout).toMatch(/penguin inspect session-[\w-]+ --at 5/);
    expect(world.kit.requests).toHaveLength(0);
  });
});

describe("./penguin install and build logic", { timeout: 60_000 }, () => {
  function fakeTree(): { dir: string; calls: () => string[]; env: NodeJS.ProcessEnv } {
    const dir = mkdtempSync(join(tmpdir(), "penguin-launcher-"));
    temps.push(dir);
    copyFileSync(LAUNCHER, join(dir, "penguin"));
    chmodSync(join(dir, "penguin"), 0o755);
    writeFileSync(join(dir, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
    for (const pkg of ["apps/cli", "packages/core"]) {
      mkdirSync(join(dir, pkg, "src"), { recursive: true });
      writeFileSync(join(dir, pkg, "src", "index.ts"), "");
      writeFileSync(join(dir, pkg, "tsconfig.json"), "{}");
    }
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const log = join(dir, "calls.log");
    writeFileSync(join(bin, "npx"), `#!/bin/sh\necho "npx $*" >> "${log}"\necho "pnpm output"\nmkdir -p node_modules && echo 'x' > node_modules/.modules.yaml\n`);
    // `npm run build` inside apps/web: the web app's own build script.
    writeFileSync(join(bin, "npm"), `#!/bin/sh\necho "npm $* in $(basename "$PWD")" >> "${log}"\nmkdir -p dist && echo '<html>' > dist/index.html\n`);
    // The build script stand-in logs its call, and builds unless `fail-build` exists.
    mkdirSync(join(dir, "apps", "cli", "scripts"), { recursive: true });
    // The real quiet step runner: it is part of the launcher's setup path.
    copyFileSync(join(REPO, "apps", "cli", "scripts", "quiet-step.mjs"), join(dir, "apps", "cli", "scripts", "quiet-step.mjs"));
    writeFileSync(
      join(dir, "apps", "cli", "scripts", "cli-build.mjs"),
      [
        'import fs from "node:fs";',
        `fs.appendFileSync(${JSON.stringify(log)}, "build " + process.argv.slice(2).join(" ") + "\\n");`,
        'console.error("tsc output");',
        'if (fs.existsSync("fail-build")) process.exit(1);',
        'fs.mkdirSync("apps/cli/bundle", { recursive: true });',
        `fs.writeFileSync("apps/cli/bundle/main.js", 'console.log("cli:" + process.argv.slice(2).join(","))');`,
        'fs.writeFileSync("apps/cli/bundle/.build-stamp", "");',
      ].join("\n"),
    );
    chmodSync(join(bin, "npx"), 0o755);
    chmodSync(join(bin, "npm"), 0o755);
    const calls = (): string[] => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
    return { dir, calls, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` } };
  }

  const at = (path: string, secondsAgo: number): void => {
    const t = Date.now() / 1000 - secondsAgo;
    utimesSync(path, t, t);
  };

  it("installs and builds on a fresh clone, then starts at once, rebuilding or reinstalling only when stale", async () => {
    const { dir, calls, env } = fakeTree();
    const launcher = join(dir, "penguin");

    const fresh = await run(launcher, ["run", "-m", "hi"], env);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toBe("cli:run,-m,hi\n");
    expect(fresh.stderr).toContain("penguin: installing dependencies (pnpm 10.34.8 install --frozen-lockfile)…");
    expect(fresh.stderr).toContain("penguin: building (tsc -b apps/cli, then the CLI bundle)…");
    // The tools' own output stays in the step's log: one line per step starting, one ending.
    expect(fresh.stderr).not.toContain("pnpm output");
    expect(fresh.stderr).not.toContain("tsc output");
    expect(fresh.stderr.trim().split("\n")).toEqual([
      "penguin: installing dependencies (pnpm 10.34.8 install --frozen-lockfile)…",
      expect.stringMatching(/^penguin: installing dependencies \(pnpm 10\.34\.8 install --frozen-lockfile\): done \(\d+ s\)$/),
      "penguin: building (tsc -b apps/cli, then the CLI bundle)…",
      expect.stringMatching(/^penguin: building \(tsc -b apps\/cli, then the CLI bundle\): done \(\d+ s\)$/),
    ]);
    expect(calls()).toEqual(["npx --yes pnpm@10.34.8 install --frozen-lockfile", "build --force"]);

    const warm = await run(launcher, ["--version"], env);
    expect(warm).toEqual({ code: 0, stdout: "cli:--version\n", stderr: "" });
    expect(calls()).toHaveLength(2);

    const stamp = join(dir, "apps", "cli", "bundle", ".build-stamp");
    at(stamp, 50);
    at(join(dir, "apps", "cli", "src", "index.ts"), 100);
    at(join(dir, "apps", "cli", "tsconfig.json"), 100);
    at(join(dir, "packages", "core", "tsconfig.json"), 100);
    at(join(dir, "packages", "core", "src", "index.ts"), 10);
    const edited = await run(launcher, ["x"], env);
    expect(edited.stderr).toContain("penguin: building");
    expect(edited.stderr).not.toContain("installing");
    expect(calls().slice(2)).toEqual(["build --force"]);
    expect((await run(launcher, ["x"], env)).stderr).toBe("");

    at(join(dir, "node_modules", ".modules.yaml"), 100);
    at(join(dir, "pnpm-lock.yaml"), 10);
    const relocked = await run(launcher, ["x"], env);
    expect(relocked.stderr).toContain("installing dependencies");
    expect(calls().slice(3)).toEqual(["npx --yes pnpm@10.34.8 install --frozen-lockfile", "build --force"]);
  });

  it("builds the web app for `web` on first use and after a web edit, and not for other commands or for help", async () => {
    const { dir, calls, env } = fakeTree();
    mkdirSync(join(dir, "apps", "web", "src"), { recursive: true });
    writeFileSync(join(dir, "apps", "web", "src", "main.tsx"), "");
    writeFileSync(join(dir, "apps", "web", "index.html"), "");
    const launcher = join(dir, "penguin");
    const webBuilds = (): string[] => calls().filter((c) => c === "npm run --silent build in web");
    await run(launcher, ["--version"], env);
    expect(webBuilds()).toHaveLength(0);
    const help = await run(launcher, ["web", "--help"], env);
    expect(help).toEqual({ code: 0, stdout: "cli:web,--help\n", stderr: "" });
    expect(webBuilds()).toHaveLength(0);
    const first = await run(launcher, ["web", "--no-open"], env);
    expect(first.stdout).toBe("cli:web,--no-open\n");
    expect(first.stderr).toContain("penguin: building the web app (vite build)…");
    expect(webBuilds()).toHaveLength(1);
    expect((await run(launcher, ["web"], env)).stderr).toBe("");
    at(join(dir, "apps", "web", "dist", "index.html"), 50);
    at(join(dir, "apps", "web", "index.html"), 100);
    at(join(dir, "apps", "web", "src", "main.tsx"), 10);
    expect((await run(launcher, ["web"], env)).stderr).toContain("building the web app");
    expect(webBuilds()).toHaveLength(2);
  });

  it("starts the server (`server`) with --optimize-for-size and two malloc arenas, and other commands without them", async () => {
    const { dir, env } = fakeTree();
    delete env.MALLOC_ARENA_MAX;
    const launcher = join(dir, "penguin");
    expect((await run(launcher, ["--version"], env)).code).toBe(0);
    // A bundle that shows the node flags it was started with, its arguments and the allocator setting.
    writeFileSync(join(dir, "apps", "cli", "bundle", "main.js"), 'console.log(process.execArgv.join(" ") + "|" + process.argv.slice(2).join(",") + "|" + (process.env.MALLOC_ARENA_MAX ?? "-"))');
    expect((await run(launcher, ["server", "--port", "0"], env)).stdout).toBe("--optimize-for-size|server,--port,0|2\n");
    expect((await run(launcher, ["run", "-m", "hi"], env)).stdout).toBe("|run,-m,hi|-\n");
    // A setting the user made is theirs.
    expect((await run(launcher, ["server"], { ...env, MALLOC_ARENA_MAX: "4" })).stdout).toBe("--optimize-for-size|server|4\n");
  });

  it("starts the server and web with glibc's mmap threshold fixed at 1 MB, other commands without it, and keeps a user's own value", async () => {
    const { dir, env } = fakeTree();
    delete env.MALLOC_MMAP_THRESHOLD_;
    const launcher = join(dir, "penguin");
    expect((await run(launcher, ["--version"], env)).code).toBe(0);
    // A bundle that shows its arguments and the mmap threshold it was given.
    writeFileSync(join(dir, "apps", "cli", "bundle", "main.js"), 'console.log(process.argv.slice(2).join(",") + "|" + (process.env.MALLOC_MMAP_THRESHOLD_ ?? "-"))');
    expect((await run(launcher, ["server", "--port", "0"], env)).stdout).toBe("server,--port,0|1048576\n");
    expect((await run(launcher, ["run", "-m", "hi"], env)).stdout).toBe("run,-m,hi|-\n");
    expect((await run(launcher, ["server"], { ...env, MALLOC_MMAP_THRESHOLD_: "262144" })).stdout).toBe("server|262144\n");
  });

  it("answers `web --help` and `web --version` without building the web app", async () => {
    const { dir, calls, env } = fakeTree();
    mkdirSync(join(dir, "apps", "web", "src"), { recursive: true });
    writeFileSync(join(dir, "apps", "web", "src", "main.tsx"), "");
    const launcher = join(dir, "penguin");
    await run(launcher, ["--version"], env);
    for (const args of [["web", "--help"], ["web", "-h"], ["web", "--version"], ["web", "--no-open", "-V"], ["web", "-v"]]) {
      const r = await run(launcher, args, env);
      expect(r, args.join(" ")).toEqual({ code: 0, stdout: `cli:${args.join(",")}\n`, stderr: "" });
    }
    expect(calls().filter((c) => c.startsWith("npm "))).toEqual([]);
    expect(existsSync(join(dir, "apps", "web", "dist"))).toBe(false);
  });

  it("stops with exit 1 and keeps the old stamp when the build fails", async () => {
    const { dir, calls, env } = fakeTree();
    writeFileSync(join(dir, "fail-build"), "");
    const r = await run(join(dir, "penguin"), ["run", "-m", "hi"], env, dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("penguin: the build failed (see above); fix it and run ./penguin again");
    expect(r.stderr).toContain("tsc output");
    // The failed step's log is kept for the user and named; this test removes it.
    const log = /its whole output is in (\S+)\n/.exec(r.stderr)?.[1];
    expect(log).toBeDefined();
    rmSync(join(log!, ".."), { recursive: true, force: true });
    expect(existsSync(join(dir, "apps", "cli", "bundle", ".build-stamp"))).toBe(false);
    rmSync(join(dir, "fail-build"));
    const again = await run(join(dir, "penguin"), ["ok"], env, dir);
    expect(again.stdout).toBe("cli:ok\n");
    expect(calls().filter((c) => c.startsWith("build"))).toHaveLength(2);
  });
});

describe("the README's scripted-model recipe", { timeout: 120_000 }, () => {
  it("runs as written: a model entry for the testkit, the testkit from source, one task with a tool call", async () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Without a key"));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block, "README: a sh block under 'Without a key'").toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "penguin-recipe-"));
    temps.push(dir);
    const port = await closedPort();
    const script = block!
      .replaceAll("/tmp/penguin-try", join(dir, "root"))
      .replaceAll("/tmp/penguin-testkit.log", join(dir, "testkit.log"))
      .replaceAll("7399", String(port));
    const r = await run("bash", ["-ec", script], cleanEnv(), REPO);
    expect(r.stderr).not.toContain("testkit violation");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("This answer comes from the scripted model");
    expect(r.stderr).toContain("exec_command <- $ ls -a");
    // Run from a script, as the README says: no terminal to ask on, so the command is denied
    // and stderr says how to allow it.
    expect(r.stderr).toContain("penguin: denied exec_command (no terminal to ask): pass --approve allow-all");
  });
});

