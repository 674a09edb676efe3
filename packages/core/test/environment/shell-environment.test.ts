// Commands run `bash -c` in the login shell's environment, captured once per session: a
// profile in a temp HOME marks each run in a counter file, exports a marker, prepends a PATH
// folder with a tool in it and exports a function. The login-shell setting sources it per
// command again; a profile that exits or hangs falls back to the harness's environment with
// one note. Sandboxed, the environment is an allowlist (no host secrets, the sandbox's HOME,
// the vault) and the command holds no descriptor beyond 0-2.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEnvironment, type Environment, type EnvironmentConfig } from "../../src/environment/index.js";
import { probeSandbox, type CommandSandbox } from "../../src/environment/commands/sandbox.js";
import { captureLoginEnvironment } from "../../src/environment/commands/shell-environment.js";
import { call, leftovers, sleepMarker, waitUntil } from "./helpers.js";

// Real processes on a loaded machine: room, never an assertion.
const PROCESS_TESTS = { timeout: 30_000 };

interface Home {
  root: string;
  home: string;
  workspace: string;
  scratchpad: string;
  counter: string;
  env: Environment | undefined;
}

let current: Home | undefined;
afterEach(async () => {
  await current?.env?.dispose();
  if (current !== undefined) await rm(current.root, { recursive: true, force: true });
  current = undefined;
});

/**
 * A temp root with a HOME whose `.bash_profile` (a login shell's first choice) runs `profile`
 * after counting itself. Outside /tmp: the sandbox's own /tmp would hide a home there.
 */
function homeWithProfile(profile: string): Home {
  const root = realpathSync(mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "penguin-shell-")));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  const scratchpad = join(root, "scratchpad");
  for (const dir of [home, join(home, "bin"), workspace, scratchpad]) mkdirSync(dir, { recursive: true });
  const counter = join(root, "profile-runs");
  writeFileSync(join(home, "bin", "penguin-profile-tool"), "#!/bin/sh\necho tool-from-profile-path\n", { mode: 0o755 });
  writeFileSync(join(home, ".bash_profile"), `echo ran >> ${counter}\n${profile}\n`);
  current = { root, home, workspace, scratchpad, counter, env: undefined };
  return current;
}

const MARKING_PROFILE = [
  "export SHELL_TEST_MARKER=from-profile",
  'export PATH="$HOME/bin:$PATH"',
  "exported_fn() { echo exported-function-works; }",
  "export -f exported_fn",
  "private_fn() { echo private; }",
  "echo the profile talks on stdout",
  "echo and on stderr >&2",
].join("\n");

function runs(h: Home): number {
  return existsSync(h.counter) ? readFileSync(h.counter, "utf8").split("\n").filter((l) => l === "ran").length : 0;
}

function open(h: Home, config: Partial<EnvironmentConfig> = {}): Environment {
  h.env = createEnvironment({
    workspaceDir: h.workspace,
    scratchpadDir: h.scratchpad,
    baseEnv: { ...process.env, HOME: h.home, OPENAI_API_KEY: "sk-test-host", PENGUIN_TEST_SECRET: "penguin-secret-4d2a", LANG: "C.UTF-8", TERM: "xterm-test" },
    ...config,
  });
  return h.env;
}

const exec = (env: Environment, cmd: string) => call(env, "exec_command", { cmd, description: "test" });

describe("commands in the captured login environment", PROCESS_TESTS, () => {
  it("sees the profile's variables, PATH and exported functions, with the profile run once for many commands", async () => {
    const h = homeWithProfile(MARKING_PROFILE);
    const env = open(h);
    expect(runs(h)).toBe(0); // lazily: nothing ran before the first command
    const first = await exec(env, 'echo "$SHELL_TEST_MARKER"; penguin-profile-tool; exported_fn');
    expect(first.output).toBe("from-profile\ntool-from-profile-path\nexported-function-works\n[exit code: 0]");
    for (let i = 0; i < 4; i++) {
      const again = await exec(env, 'echo "$SHELL_TEST_MARKER"');
      expect(again.output).toBe("from-profile\n[exit code: 0]");
    }
    expect(runs(h)).toBe(1);
    // Not carried (a child shell never inherits them): functions the profile did not export.
    const priv = await exec(env, "type private_fn >/dev/null 2>&1 && echo defined || echo not-defined");
    expect(priv.output).toBe("not-defined\n[exit code: 0]");
    // Host internals stay scrubbed, pagers stay pinned, even after the profile.
    const scrubbed = await exec(env, 'echo "${PENGUIN_TEST_SECRET-unset} $PAGER"');
    expect(scrubbed.output).toBe("unset cat\n[exit code: 0]");
  });

  it("starts the capture when told a command is about to run (prepareTool), before the command itself", async () => {
    const h = homeWithProfile(MARKING_PROFILE);
    const env = open(h);
    env.prepareTool({ type: "tool_call", role: "assistant", name: "exec_command", arguments: '{"cmd":"true"}', tool_call_id: "call_warm" });
    // The profile runs with no command started: the engine's hint alone began the capture.
    await waitUntil(() => runs(h) === 1, "the profile run by the capture prepareTool started", 25_000);
    const first = await exec(env, 'echo "$SHELL_TEST_MARKER"; penguin-profile-tool');
    expect(first.output).toBe("from-profile\ntool-from-profile-path\n[exit code: 0]");
    env.prepareTool({ type: "tool_call", role: "assistant", name: "exec_command", arguments: '{"cmd":"true"}', tool_call_id: "call_again" });
    await exec(env, "true");
    expect(runs(h)).toBe(1);
  });

  it("keeps exit codes, and neither cd nor variables carry over to the next command", async () => {
    const h = homeWithProfile(MARKING_PROFILE);
    const env = open(h);
    const moved = await exec(env, "cd / && pwd && export LEFT_BEHIND=yes && exit 7");
    expect(moved.stopReason).toBe("failed");
    expect(moved.output).toBe("/\n[exit code: 7]");
    const next = await exec(env, 'pwd; echo "${LEFT_BEHIND-unset}"');
    expect(next.output).toBe(`${h.workspace}\nunset\n[exit code: 0]`);
  });

  it("with the login-shell setting, sources the profile for every command", async () => {
    const h = homeWithProfile(MARKING_PROFILE);
    const env = open(h, { loginShell: true });
    for (let i = 0; i < 3; i++) {
      const r = await exec(env, 'echo "$SHELL_TEST_MARKER"; type private_fn >/dev/null 2>&1 && echo private-defined');
      // The profile's own chatter reaches the command's output here, as it always did.
      expect(r.output).toContain("the profile talks on stdout\n");
      // (stdout and stderr are two pipes: their order in the merged output is not fixed)
      expect(r.output).toContain("from-profile\n");
      expect(r.output).toContain("private-defined\n");
      expect(r.output.endsWith("[exit code: 0]")).toBe(true);
    }
    expect(runs(h)).toBe(3);
  });

  it("falls back to the harness's environment with one note when the profile exits", async () => {
    const h = homeWithProfile("exit 3");
    const env = open(h);
    const first = await exec(env, 'echo "${SHELL_TEST_MARKER-no-marker}"; echo "$HOME"');
    expect(first.stopReason).toBe("completed");
    expect(first.output).toMatch(
      new RegExp(`^no-marker\\n${h.home}\\n\\[shell: the login shell exited with code 3 before printing its environment; commands in this session run with the harness's own environment.*tools\\.exec\\.loginShell: true.*\\]\\n\\[exit code: 0\\]$`, "s"),
    );
    const second = await exec(env, "echo still-works");
    expect(second.output).toBe("still-works\n[exit code: 0]");
    expect(runs(h)).toBe(1);
  });

  it("falls back when the profile hangs, and stops the hung profile at the capture's limit", async () => {
    const marker = sleepMarker();
    const h = homeWithProfile(`sleep ${marker}`);
    // Waited for 300 ms; left to run unwaited after that, and stopped at its limit (3 s from its start).
    const env = open(h, { shellCaptureTimeoutMs: 300, shellCaptureLimitMs: 3_000 });
    const r = await exec(env, "echo works");
    expect(r.output).toMatch(/^works\n\[shell: the login shell did not finish within 300 ms; it goes on in the background, unwaited, and is stopped if still running 3 s after its start; .*\]\n\[exit code: 0\]$/s);
    await waitUntil(() => leftovers(marker).length === 0, "the hung profile's sleep to be killed at the limit", 25_000);
  });

  it("starts nothing when the call is interrupted during a hung capture; dispose stops waiting without killing it, and an unwaited capture ends at its limit", async () => {
    const marker = sleepMarker();
    const h = homeWithProfile(`sleep ${marker}`);
    const env = open(h, { shellCaptureTimeoutMs: 600_000, shellCaptureLimitMs: 600_000 });
    const ctrl = new AbortController();
    const pending = call(env, "exec_command", { cmd: "touch started.flag", description: "x" }, { signal: ctrl.signal });
    await waitUntil(() => leftovers(marker).length > 0, "the profile to hang in its sleep");
    ctrl.abort();
    const r = await pending;
    expect(r.stopReason).toBe("aborted");
    expect(existsSync(join(h.workspace, "started.flag"))).toBe(false);
    await env.dispose();
    // The session stopped waiting; the profile is not cut short by that (killed by hand below).
    expect(leftovers(marker).length).toBeGreaterThan(0);
    // A capture nobody waits for still ends at its limit.
    const limited = await captureLoginEnvironment({ env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: h.home }, cwd: h.workspace, timeoutMs: 100, limitMs: 2_000 });
    expect(limited).toMatchObject({ ok: false, reason: expect.stringMatching(/^the login shell did not finish within 100 ms; it goes on in the background/) });
    await waitUntil(() => leftovers(marker).length === 1, "the second capture's sleep to be stopped at its limit", 25_000);
    for (const line of leftovers(marker)) process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
  });

  it("leaves no lock behind when the task is cancelled and the session ends while the profile holds one", async () => {
    // A profile like pyenv's rehash: takes a lock file (noclobber), works, removes it at the end
    // (no trap). It works until the test says go, so the session ends while the lock is held.
    const h = homeWithProfile("");
    const lock = join(h.home, ".profile-tool.lock");
    const go = join(h.root, "go");
    const done = join(h.root, "profile-done");
    writeFileSync(
      join(h.home, ".bash_profile"),
      [`set -o noclobber`, `echo $$ > ${lock} || exit 9`, `set +o noclobber`, `while [ ! -e ${go} ]; do sleep 0.05; done`, `echo talking on stderr >&2`, `rm -f ${lock}`, `echo done > ${done}`].join("\n") + "\n",
    );
    const env = open(h);
    const ctrl = new AbortController();
    const pending = call(env, "exec_command", { cmd: "touch started.flag", description: "x" }, { signal: ctrl.signal });
    await waitUntil(() => existsSync(lock), "the profile to take its lock");
    ctrl.abort();
    expect((await pending).stopReason).toBe("aborted");
    await env.dispose();
    h.env = undefined;
    writeFileSync(go, "");
    await waitUntil(() => existsSync(done), "the profile to finish after the session ended (not killed mid-profile)", 25_000);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(h.workspace, "started.flag"))).toBe(false);
  });

  it("captures a profile that leaves a daemon holding its output open", async () => {
    const marker = sleepMarker();
    const h = homeWithProfile(`export SHELL_TEST_MARKER=with-daemon; (sleep ${marker} &)`);
    const captured = await captureLoginEnvironment({ env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: h.home }, cwd: h.workspace, timeoutMs: 20_000 });
    expect(captured).toMatchObject({ ok: true, env: { SHELL_TEST_MARKER: "with-daemon", HOME: h.home } });
    if (captured.ok) for (const own of ["PWD", "OLDPWD", "SHLVL", "_"]) expect(captured.env[own]).toBeUndefined();
    for (const line of leftovers(marker)) process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
  });
});

const bwrap = probeSandbox();

describe(`sandboxed commands' environment and descriptors${bwrap.available ? "" : ` (skipped: ${bwrap.reason ?? "no bwrap"})`}`, PROCESS_TESTS, () => {
  function boxed(h: Home): CommandSandbox {
    return { writable: [h.workspace, h.scratchpad], readOnly: [], hidden: [h.root], hiddenUnlessOnPath: [], masked: [], privateHomes: [h.home], network: false };
  }

  it.skipIf(!bwrap.available)("holds only the allowlist, the sandbox's HOME and the vault; the host profile never runs", async () => {
    const h = homeWithProfile(MARKING_PROFILE);
    const env = open(h, { sandbox: boxed(h), vault: { VAULT_TOKEN: "vault-value-91c3" } });
    const r = await exec(env, "env | cut -d= -f1 | sort | tr '\\n' ' '; echo; echo \"$HOME|$LANG|$TERM|$VAULT_TOKEN\"; printf %s \"$VAULT_TOKEN\" > vault.out");
    const names = (r.output.split("\n")[0] ?? "").trim().split(" ");
    expect(names).not.toContain("OPENAI_API_KEY");
    expect(names).not.toContain("PENGUIN_TEST_SECRET");
    expect(names).not.toContain("SHELL_TEST_MARKER");
    for (const name of ["PATH", "HOME", "LANG", "TERM", "PAGER", "VAULT_TOKEN"]) expect(names).toContain(name);
    expect(r.output.split("\n")[1]).toBe(`${h.home}|C.UTF-8|xterm-test|[vault:VAULT_TOKEN]`);
    expect(readFileSync(join(h.workspace, "vault.out"), "utf8")).toBe("vault-value-91c3");
    expect(r.output).not.toContain("sk-test-host");
    // The capture ran inside the sandbox, where the home is private: the host profile did not run.
    expect(runs(h)).toBe(0);
  });

  it.skipIf(!bwrap.available)("gives the command no descriptor beyond 0-2 (3 is ls's own listing)", async () => {
    const h = homeWithProfile("");
    const env = open(h, { sandbox: boxed(h) });
    const r = await exec(env, "echo $(ls /proc/self/fd)");
    expect(r.output).toBe("0 1 2 3\n[exit code: 0]");
    await env.dispose();
    const login = open(h, { sandbox: boxed(h), loginShell: true });
    const again = await exec(login, "echo $(ls /proc/self/fd)");
    expect(again.output).toBe("0 1 2 3\n[exit code: 0]");
  });
});
