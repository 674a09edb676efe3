// bwrap's arguments for a sandbox, on real temp folders (the builder resolves real paths and
// creates missing writable folders): mounts in depth order with binds before hides at the
// same depth, so a workspace inside the hidden data root comes back and a data root inside a
// workspace is hidden again; hidden folders remounted read-only last; `/`, `/tmp` and system
// folders never hidden; a workspace parent holding a PATH entry left visible; masks only on
// visible files; the isolation flags (a pid namespace with its own /proc always), with the
// network namespace only when the network is off.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapArguments, type CommandSandbox } from "../../src/environment/commands/sandbox.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "penguin-bwrap-args-")));
  dirs.push(d);
  return d;
}

function box(over: Partial<CommandSandbox>): CommandSandbox {
  return { writable: [], readOnly: [], hidden: [], hiddenUnlessOnPath: [], masked: [], network: false, ...over };
}

/** The mount operations as "op path" strings, in order (the fixed base mounts dropped). */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 6; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--tmpfs" || a === "--remount-ro" || a === "--chdir") out.push(`${a} ${args[++i]}`);
    else if (a === "--bind" || a === "--ro-bind") {
      out.push(`${a} ${args[i + 1]} ${args[i + 2]}`);
      i += 2;
    }
  }
  return out;
}

describe("bwrapArguments", () => {
  it("starts from a read-only system with a fresh /dev and /tmp, and isolates", () => {
    const root = temp();
    const args = bwrapArguments(box({ writable: [root] }), root, { PATH: "/usr/bin" });
    expect(args.slice(0, 6)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs"]);
    expect(args[6]).toBe("/tmp");
    for (const flag of ["--unshare-net", "--unshare-ipc", "--unshare-pid", "--die-with-parent", "--new-session"]) expect(args).toContain(flag);
    // The pid namespace's own /proc, so the host's processes are not listed inside.
    expect(args.slice(7, 9)).toEqual(["--proc", "/proc"]);
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args.slice(-2)).toEqual(["--chdir", root]);
    expect(bwrapArguments(box({ writable: [root], network: true }), root, {})).not.toContain("--unshare-net");
  });

  it("hides the data root, then binds the workspace, scratchpad and agent_state inside it; hidden folders end read-only", () => {
    const root = temp();
    const ws = join(root, "p", "agents", "a", "workspaces", "tmp-1");
    const scratch = join(root, "p", "agents", "a", "scratchpad", "s1");
    const state = join(root, "p", "agents", "a", "agent_state");
    mkdirSync(ws, { recursive: true });
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, ".vault.toml"), "K = 'v'\n");
    const args = bwrapArguments(box({ writable: [ws, scratch], readOnly: [state], hidden: [root], masked: [join(state, ".vault.toml"), join(root, "p", ".project_config.toml")] }), ws, {});
    expect(mounts(args)).toEqual([
      `--tmpfs ${root}`,
      `--ro-bind ${state} ${state}`,
      `--bind ${ws} ${ws}`,
      `--bind ${scratch} ${scratch}`,
      `--ro-bind /dev/null ${join(state, ".vault.toml")}`,
      `--remount-ro ${root}`,
      `--chdir ${ws}`,
    ]);
  });

  it("hides a data root that lies inside the workspace after binding the workspace; equal paths end hidden", () => {
    const home = temp();
    const root = join(home, ".penguin", "data");
    mkdirSync(root, { recursive: true });
    expect(mounts(bwrapArguments(box({ writable: [home], hidden: [root] }), home, {})).slice(0, 2)).toEqual([`--bind ${home} ${home}`, `--tmpfs ${root}`]);
    expect(mounts(bwrapArguments(box({ writable: [root], hidden: [root] }), root, {})).slice(0, 2)).toEqual([`--bind ${root} ${root}`, `--tmpfs ${root}`]);
  });

  it("never hides /, /tmp or a system folder, and keeps a workspace parent that holds a PATH entry", () => {
    const parent = temp();
    const ws = join(parent, "project");
    mkdirSync(join(parent, "bin"), { recursive: true });
    const hides = (env: Record<string, string>, hidden: string[], parents: string[]) =>
      mounts(bwrapArguments(box({ writable: [ws], hidden, hiddenUnlessOnPath: parents }), ws, env)).filter((m) => m.startsWith("--tmpfs"));
    expect(hides({ PATH: "/usr/bin" }, ["/", "/tmp", "/usr", "/etc"], [parent, "/usr/lib", "/"])).toEqual([`--tmpfs ${parent}`]);
    expect(hides({ PATH: `/usr/bin:${join(parent, "bin")}` }, [], [parent])).toEqual([]);
    // A data root inside a system folder (/var/…) is still hidden; a missing folder has nothing to hide.
    const underVar = realpathSync(mkdtempSync("/var/tmp/penguin-bwrap-args-"));
    dirs.push(underVar);
    expect(hides({}, [underVar, join(parent, "missing")], [])).toEqual([`--tmpfs ${underVar}`]);
  });

  it("makes private homes empty and writable (no read-only remount), binds PATH tools in them back read-only, and masks only what stays visible", () => {
    const home = realpathSync(mkdtempSync("/var/tmp/penguin-bwrap-home-"));
    dirs.push(home);
    const ws = join(home, "work");
    const nvm = join(home, ".nvm", "versions", "node", "v20");
    for (const d of [ws, join(nvm, "bin"), join(home, "bin"), join(ws, "node_modules", ".bin"), join(home, ".ssh")]) mkdirSync(d, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "key\n");
    const outside = join(home, "..", `penguin-bwrap-secret-${process.pid}`);
    writeFileSync(outside, "secret\n");
    dirs.push(outside);
    const env = { PATH: [join(nvm, "bin"), join(home, "bin"), join(ws, "node_modules", ".bin"), "/usr/bin"].join(":") };
    const args = bwrapArguments(box({ writable: [ws], privateHomes: [home, "/usr"], masked: [join(home, ".ssh", "id_rsa"), outside] }), ws, env);
    expect(mounts(args)).toEqual([
      `--tmpfs ${home}`,
      `--bind ${ws} ${ws}`,
      `--ro-bind ${join(home, "bin")} ${join(home, "bin")}`,
      `--ro-bind ${nvm} ${nvm}`,
      `--ro-bind /dev/null ${realpathSync(outside)}`,
      `--chdir ${ws}`,
    ]);
    expect(args).not.toContain("--remount-ro");
    // Without private homes nothing about them is added.
    expect(mounts(bwrapArguments(box({ writable: [ws] }), ws, env))).toEqual([`--bind ${ws} ${ws}`, `--chdir ${ws}`]);
  });
});
