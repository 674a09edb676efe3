// The one boundary: the mount table of a session and accessAt's answer for a real path, on
// real temp folders. Every kind of mount (read-only system, private /tmp, /dev and /proc,
// hidden data root with binds put back, private homes, masked files), nesting in both
// directions, and the file tools' path resolution in front of it: `..`, `~`, symlinks out (to
// a file, a folder, a missing file, a link chain), /proc/self/root and /proc/self/cwd, a
// missing file's nearest existing ancestor. Then a property: for random layouts, accessAt
// agrees with what a real bwrap sandbox built from the same table lets `cat` and `test -w` do
// (skipped, visibly, where bwrap cannot run).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { accessAt, mountTable, unconfinedTable, withReadOnly, type SessionBoundary } from "../../src/environment/commands/mount-table.js";
import { bwrapArguments, probeSandbox, type CommandSandbox } from "../../src/environment/commands/sandbox.js";
import { localFileOperations } from "../../src/environment/file-operations.js";
import { locateFile } from "../../src/environment/tools/file-target.js";
import { createEnvironment } from "../../src/environment/index.js";
import { call } from "./helpers.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "penguin-mount-table-")));
  dirs.push(d);
  return d;
}

function put(path: string, content = `content of ${path}`): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** A data root holding one agent's folders, a workspace inside it, a host home beside it. */
function layout() {
  const base = temp();
  const root = join(base, "data");
  const agent = join(root, "p", "agents", "a");
  const ws = join(agent, "workspaces", "w1");
  const other = join(agent, "workspaces", "w2");
  const scratch = join(agent, "scratchpad", "s1");
  const shared = join(agent, "shared_env");
  const state = join(agent, "agent_state");
  const home = join(base, "home");
  for (const d of [ws, other, scratch, shared, state, home]) mkdirSync(d, { recursive: true });
  put(join(state, "AGENTS.md"));
  put(join(state, ".vault.toml"), "KEY = 'v'");
  put(join(other, "notes.md"));
  put(join(root, "p", ".project_config.toml"));
  put(join(home, ".bashrc"));
  const boundary: SessionBoundary = {
    writable: [ws, scratch, shared],
    readOnly: [state],
    hidden: [root],
    hiddenUnlessOnPath: [join(agent, "workspaces")],
    masked: [join(state, ".vault.toml")],
    privateHomes: [home],
  };
  return { base, root, agent, ws, other, scratch, shared, state, home, boundary };
}

describe("accessAt", () => {
  it("answers each kind of mount: binds write, agent_state and the system read, the rest absent", () => {
    const l = layout();
    const table = mountTable(l.boundary, "/usr/bin:/bin");
    const at = (p: string) => accessAt(table, p);
    expect(at(join(l.ws, "src", "new.ts"))).toBe("write");
    expect(at(l.ws)).toBe("write");
    expect(at(join(l.scratch, "truncated-tool-output", "x.txt"))).toBe("write");
    expect(at(join(l.shared, "tool"))).toBe("write");
    expect(at(join(l.state, "AGENTS.md"))).toBe("read");
    expect(at(join(l.state, ".vault.toml"))).toBe("absent");
    expect(at(join(l.other, "notes.md"))).toBe("absent");
    expect(at(join(l.root, "p", ".project_config.toml"))).toBe("absent");
    expect(at(join(l.root, "p", "agents", "a", "traces", "t.jsonl"))).toBe("absent");
    expect(at(join(l.home, ".bashrc"))).toBe("absent");
    expect(at("/usr/bin/env")).toBe("read");
    expect(at("/etc/hostname")).toBe("read");
    expect(at("/tmp/elsewhere")).toBe("absent");
    expect(at("/proc/self/environ")).toBe("absent");
    expect(at("/dev/sda")).toBe("absent");
  });

  it("follows nesting both ways: a data root inside a workspace is hidden again, a workspace inside a home comes back", () => {
    const base = temp();
    const ws = join(base, "home", "me");
    const root = join(ws, ".penguin", "data");
    const inner = join(root, "p", "agents", "a", "workspaces", "w");
    mkdirSync(inner, { recursive: true });
    const table = mountTable({ writable: [ws, inner], readOnly: [], hidden: [root], hiddenUnlessOnPath: [], masked: [], privateHomes: [join(base, "home")] }, "/usr/bin");
    expect(accessAt(table, join(ws, "project", "a.ts"))).toBe("write");
    expect(accessAt(table, join(root, "p", ".project_config.toml"))).toBe("absent");
    expect(accessAt(table, join(inner, "b.ts"))).toBe("write");
    expect(accessAt(table, join(base, "home", "someone-else", ".ssh", "id_rsa"))).toBe("absent");
    // The same folder bound then hidden at one depth: the hide, mounted later, wins.
    const same = mountTable({ writable: [ws], readOnly: [], hidden: [ws], hiddenUnlessOnPath: [], masked: [] }, "/usr/bin");
    expect(accessAt(same, join(ws, "x"))).toBe("absent");
  });

  it("a writable folder not made yet, under a symlinked parent, is granted at the real path the tools resolve", async () => {
    const base = temp();
    mkdirSync(join(base, "real-root"));
    symlinkSync(join(base, "real-root"), join(base, "root-link"));
    const scratch = join(base, "root-link", "scratchpad", "s1");
    const table = mountTable({ writable: [scratch], readOnly: [], hidden: [join(base, "root-link")], hiddenUnlessOnPath: [], masked: [] }, "/usr/bin");
    const t = await locateFile(localFileOperations, scratch, join(scratch, "truncated-tool-output", "o.txt"), { allowMissing: true, write: true, boundary: () => table });
    expect(t.ok && t.real).toBe(join(base, "real-root", "scratchpad", "s1", "truncated-tool-output", "o.txt"));
  });

  it("withReadOnly demotes a writable folder but never uncovers a hidden one; unconfined keeps agent_state read-only", () => {
    const l = layout();
    const table = withReadOnly(mountTable(l.boundary, "/usr/bin"), [l.state, l.ws, l.other]);
    expect(accessAt(table, join(l.ws, "a"))).toBe("read");
    expect(accessAt(table, join(l.other, "notes.md"))).toBe("absent");
    const open = unconfinedTable([l.state], [join(l.state, "memory")]);
    expect(accessAt(open, join(l.state, "system_config.yaml"))).toBe("read");
    expect(accessAt(open, join(l.state, "memory", "user", "MEMORY.md"))).toBe("write");
    // A kept folder is never made writable where the table did not grant it.
    expect(accessAt(withReadOnly(mountTable(l.boundary, "/usr/bin"), [l.state], [join(l.state, "memory")]), join(l.state, "memory", "x"))).toBe("read");
    expect(accessAt(open, join(l.other, "notes.md"))).toBe("write");
  });
});

describe("the file tools' paths against the table", () => {
  async function locate(l: ReturnType<typeof layout>, path: string, write: boolean) {
    const table = mountTable(l.boundary, "/usr/bin:/bin");
    return locateFile(localFileOperations, l.ws, path, { allowMissing: true, write, boundary: () => table });
  }

  it("resolves `..`, `~`, symlinks (file, folder, dangling, chains) and /proc's links before asking", async () => {
    const l = layout();
    const withHome = { ...l, boundary: { ...l.boundary, privateHomes: [l.home, homedir()] } };
    symlinkSync(join(l.other, "notes.md"), join(l.ws, "to-file"));
    symlinkSync(l.state, join(l.ws, "to-state"));
    symlinkSync(join(l.other, "planted.md"), join(l.ws, "dangling"));
    symlinkSync(join(l.ws, "dangling"), join(l.ws, "chain"));
    symlinkSync(join(l.ws, "sub"), join(l.ws, "to-sub"));
    mkdirSync(join(l.ws, "sub"));
    const outside = async (path: string, write: boolean) => {
      const t = await locate(withHome, path, write);
      expect(t.ok, path).toBe(false);
      if (!t.ok) expect(t.error, path).toMatch(/^No such file or directory: .* outside what this session may touch/);
    };
    await outside("../w2/notes.md", false);
    await outside(`${relative(l.ws, l.root)}/p/.project_config.toml`.replace(".project_config.toml", "x"), false);
    await outside("~/.bashrc", false);
    await outside("~", false);
    await outside(join(l.home, ".bashrc"), false);
    await outside("to-file", false);
    await outside("dangling", true);
    await outside("chain", true);
    await outside("to-sub/../../w2/notes.md", false);
    await outside(`/proc/self/root${join(l.other, "notes.md")}`, false);
    await outside("/proc/self/environ", false);
    await outside("/tmp/not-the-workspace.txt", true);
    const readOnly = await locate(l, "to-state/AGENTS.md", true);
    expect(readOnly.ok).toBe(false);
    if (!readOnly.ok) expect(readOnly.error).toMatch(/^Read-only file system: to-state\/AGENTS\.md .*agent_state/);
    const readable = await locate(l, "to-state/AGENTS.md", false);
    expect(readable.ok && readable.real).toBe(join(l.state, "AGENTS.md"));
    // Through /proc/self/cwd and /proc/self/root, a path that leads back inside is fine.
    const viaRoot = await locate(l, `/proc/self/root${join(l.ws, "sub", "new.txt")}`, true);
    expect(viaRoot.ok && viaRoot.real).toBe(join(l.ws, "sub", "new.txt"));
    const cwd = process.cwd();
    process.chdir(l.ws);
    try {
      const viaCwd = await locate(l, "/proc/self/cwd/sub/x.txt", true);
      expect(viaCwd.ok && viaCwd.real).toBe(join(l.ws, "sub", "x.txt"));
      await outside("/proc/self/cwd/../w2/notes.md", false);
    } finally {
      process.chdir(cwd);
    }
    // A missing file: its nearest existing ancestor's real path plus the rest.
    const deep = await locate(l, "to-sub/a/b/c.txt", true);
    expect(deep.ok && deep.real).toBe(join(l.ws, "sub", "a", "b", "c.txt"));
  });

  it("through an Environment: the refusals reach the model, nothing is written or read out", async () => {
    const l = layout();
    const env = createEnvironment({ workspaceDir: l.ws, scratchpadDir: l.scratch, boundary: l.boundary, readOnlyForTools: [l.state] });
    const run = async (name: string, args: object) => (await call(env, name, args)).output;
    const before = readFileSync(join(l.state, "AGENTS.md"), "utf8");
    expect(await run("edit_file", { file_path: join(l.state, "AGENTS.md"), old_string: "content", new_string: "owned" })).toContain("Read-only file system");
    expect(await run("write_file", { file_path: join(l.other, "notes.md"), content: "owned" })).toContain("No such file or directory");
    expect(await run("read_file", { file_path: join(l.home, ".bashrc") })).not.toContain(`content of ${join(l.home, ".bashrc")}`);
    expect(readFileSync(join(l.state, "AGENTS.md"), "utf8")).toBe(before);
    expect(readFileSync(join(l.other, "notes.md"), "utf8")).toBe(`content of ${join(l.other, "notes.md")}`);
    expect(await run("write_file", { file_path: "ok.txt", content: "fine" })).toContain("Created ok.txt");
    await env.dispose();
    // Without a boundary agent_state is still read-only to the tools.
    const open = createEnvironment({ workspaceDir: l.ws, scratchpadDir: l.scratch, readOnlyForTools: [l.state] });
    const out = (await call(open, "write_file", { file_path: join(l.state, "system_config.yaml"), content: "mcp: {}" })).output;
    expect(out).toContain("Read-only file system");
    await open.dispose();
  });
});

const bwrap = probeSandbox();
const skipReason = bwrap.available ? "" : ` (SKIPPED: ${bwrap.reason ?? "bwrap cannot run"})`;

describe(`accessAt agrees with a real bwrap sandbox${skipReason}`, () => {
  const roles = ["writable", "readOnly", "hidden", "private", "none"] as const;
  type Role = (typeof roles)[number];
  const layouts = fc.array(fc.record({ parent: fc.nat(), role: fc.constantFrom(...roles), masked: fc.boolean() }), { minLength: 1, maxLength: 7 });

  it.skipIf(!bwrap.available)("for random nested layouts, every file's access is what `cat` and `test -w` find inside", () => {
    fc.assert(
      fc.property(layouts, (spec) => {
        const base = temp();
        const folders: string[] = [];
        const boundary = { writable: [] as string[], readOnly: [] as string[], hidden: [] as string[], hiddenUnlessOnPath: [], masked: [] as string[], privateHomes: [] as string[], network: false };
        const files: string[] = [put(join(base, "top.txt"))];
        spec.forEach((d, i) => {
          const parent = i === 0 ? base : folders[d.parent % i]!;
          const dir = join(parent, `d${i}`);
          mkdirSync(dir, { recursive: true });
          folders.push(dir);
          const file = put(join(dir, "f.txt"));
          files.push(file);
          const lists: Record<Role, string[] | undefined> = { writable: boundary.writable, readOnly: boundary.readOnly, hidden: boundary.hidden, private: boundary.privateHomes, none: undefined };
          lists[d.role]?.push(dir);
          if (d.masked) boundary.masked.push(file);
        });
        const sandbox: CommandSandbox = boundary;
        const args = bwrapArguments(sandbox, "/", { PATH: "/usr/bin:/bin" });
        const table = mountTable(sandbox, "/usr/bin:/bin");
        const probes = [...files, "/etc/hostname", "/etc/passwd"];
        const script = probes
          .map((p) => `if c=$(head -n1 '${p}' 2>/dev/null) && [ "$c" = "$(printf %s "$1" | sed -n ${probes.indexOf(p) + 1}p)" ]; then if [ -w '${p}' ]; then echo write; else echo read; fi; else echo absent; fi`)
          .join("\n");
        const expected = probes.map((p) => readFileSync(p, "utf8").split("\n")[0]);
        const run = spawnSync("bwrap", [...args, "--", "sh", "-c", script, "probe", expected.join("\n")], { encoding: "utf8", timeout: 20_000 });
        expect(run.status, run.stderr).toBe(0);
        const seen = run.stdout.trim().split("\n");
        const said = probes.map((p) => accessAt(table, p));
        expect(Object.fromEntries(probes.map((p, i) => [p, said[i]]))).toEqual(Object.fromEntries(probes.map((p, i) => [p, seen[i]])));
      }),
      { numRuns: 12 },
    );
  });
});
