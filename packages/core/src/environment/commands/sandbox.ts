/**
 * The command sandbox: how a command's `bash -c` (or `bash -lc`) is wrapped in bubblewrap
 * (`bwrap`), and whether bwrap can run here at all.
 *
 * Inside the sandbox:
 *   - the whole system is visible read-only (`--ro-bind / /`), with a fresh `/dev` and a
 *     private, empty `/tmp`;
 *   - the `hidden` directories (the data root, the workspace's parent, so other workspaces)
 *     are replaced by empty, read-only tmpfs mounts: project configs with API keys, vaults,
 *     traces and databases are simply not there, and nothing can be written in their place;
 *   - the `writable` directories (the workspace, the session's scratchpad, the agent's
 *     shared_env) are bound back read-write, `readOnly` ones (agent_state, for skills) read-only,
 *     and `masked` files (the vault inside agent_state) are covered by `/dev/null` on a
 *     no-device mount, so opening them fails;
 *   - the `privateHomes` (by default `/root`, `/home` and the harness's own home folder) are
 *     replaced by empty, writable, throwaway tmpfs mounts: SSH keys, cloud and registry tokens,
 *     shell histories of the host's users are not there, while tools that write caches or
 *     dotfiles under $HOME still can (it all vanishes when the command ends). Folders on the
 *     command's PATH inside a home (`~/.cargo/bin`, a `~/.nvm/…/bin`: the install prefix when
 *     the entry is a `bin`) are bound back read-only, so the tools stay runnable;
 *   - host secret files outside any hidden folder (`/etc/shadow`, SSH host keys: see
 *     `hostSecretFiles`) are masked like the vault when the host lists them in `masked`;
 *   - the network is a fresh namespace with only a loopback device unless `network` is true;
 *   - every capability is dropped (as root, bwrap would otherwise keep them, and a process with
 *     CAP_SYS_ADMIN could unmount the tmpfs that hides the data root, or read the server's
 *     files through `/proc/<pid>/root`).
 *
 * The mounts themselves are the session's mount table (mount-table.ts), the one description
 * the file tools check paths against too; this file spells it as bwrap arguments.
 * Mounts are applied in order of path depth, a bind before a hide at the same depth, so a
 * workspace inside the hidden data root is put back after the root is hidden, and a data root
 * inside a workspace (`--root ~/.penguin/data` with the home folder as workspace) is hidden
 * again after the workspace is bound. A directory holding a tool on the command's PATH is
 * never hidden as "the workspace's parent" (hiding `/root` for a workspace `/root/work` would
 * take the interpreters away); the data root is always hidden.
 *
 * Processes: every command gets a pid namespace of its own with a fresh `/proc`, so it sees
 * only its own processes and cannot signal the harness, the server or another session's
 * commands (their pids do not exist in there). bwrap keeps a small init as pid 1 of the
 * namespace, and a pid namespace ends, all its processes killed, when that init goes; bwrap
 * itself leaves as soon as the first process it started exits, and with `--die-with-parent`
 * its init goes with it (without that flag nothing would end a namespace whose harness died).
 * So the first process is not the
 * command but a supervisor (`SANDBOX_SUPERVISOR`, plain bash): it runs `bash -c <cmd>` as its
 * child, reports the command's exit status on `SANDBOX_STATUS_FD` the moment the command
 * exits, then stays while anything the command left behind (`server &`) still runs, and exits
 * when the namespace holds only init and itself. A background job therefore outlives the shell
 * as it does without the sandbox, and `--die-with-parent` still ends everything when the
 * harness dies (bwrap outlives the command as long as the namespace does).
 *
 * Process groups: `--new-session` puts init, the supervisor and the command in a session of
 * their own (no terminal to inject keystrokes into), and with it one process group, led by
 * init, whose pid bwrap reports on `--info-fd` as `child-pid`. The caller signals that group:
 * Ctrl-C and SIGTERM reach the command and its jobs, the supervisor only traps them (a trap,
 * not an ignore, so the command starts with default dispositions), and init, as pid 1 of the
 * namespace, does not receive signals it has no handler for, except SIGKILL, which ends it and
 * with it every process of the namespace, even one that left the group with `setsid`.
 *
 * Availability is probed once per bwrap path by running a trivial sandbox with the same
 * namespaces; where user namespaces are disabled the probe fails and the sandbox counts as
 * missing, with bwrap's own message as the reason. Where only the pid namespace's `/proc`
 * cannot be mounted (some containers), the sandbox counts as missing too, rather than running
 * commands that could signal the server, and the reason says so. A host may name a memo file
 * (`memoFile`, probe-memo.ts): a yes found there for this machine's fingerprint is taken without
 * starting bwrap, and a fresh yes is written there for the next process.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { mayHide, mountTable, real, type Mount, type SessionBoundary } from "./mount-table.js";
import { memoSaysAvailable, probeMemo, rememberAvailable, type ProbeMemo } from "./probe-memo.js";

/** What a host asks for: sandboxed commands, and whether they may use the network. */
export interface SandboxOptions {
  enabled: boolean;
  /**
   * Keep the file tools to the session's boundary (the mount table) even where `enabled` is
   * false and commands run without bwrap (a server without bwrap, or with `--no-sandbox`);
   * with `enabled` they always keep to it. The file tools need no bwrap.
   */
  confineFiles?: boolean;
  /** Default false: the sandbox has no network but its own loopback. */
  network?: boolean;
  /**
   * More folders to hide besides the data root and the workspace's parent: a server's
   * workspace roots, say, so no other team's workspace is visible.
   */
  hide?: readonly string[];
  /**
   * Home folders replaced by empty, writable, throwaway ones inside the sandbox (PATH tools in
   * them stay). Default `/root`, `/home` and the harness's home folder; `[]` leaves them visible.
   */
  privateHomes?: readonly string[];
}

/** The mounts of one environment's sandbox (its boundary, mount-table.ts) and its network. */
export interface CommandSandbox extends SessionBoundary {
  network: boolean;
  /** The bwrap executable; default `bwrap` from PATH. */
  bwrapPath?: string;
}

export interface SandboxAvailability {
  available: boolean;
  /** Why not, when not available; names what to install or enable. */
  reason?: string;
}

export const DEFAULT_BWRAP = "bwrap";

/** How a probe may skip bwrap: the memo file of earlier probes (`sandboxProbeMemo(root)`), shared across processes. */
export interface ProbeOptions {
  memoFile?: string;
}

/** System folders never hidden, nor any folder above them. */
/** The flags every sandbox uses besides its mounts (the probe uses them too). */
function isolationFlags(network: boolean): string[] {
  return [...(network ? [] : ["--unshare-net"]), "--unshare-ipc", "--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
}

/** The mounts every sandbox starts from (the probe uses them too); the fresh `/proc` is the pid namespace's. */
const BASE_MOUNTS = ["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp", "--proc", "/proc"];

/** The fd on which the supervisor reports the command's exit status (`exit-status N`). */
export const SANDBOX_STATUS_FD = 4;

/**
 * The sandbox's first process (see the header): runs the command, reports its status, waits
 * out what the command left behind. Signals the caller sends the group are trapped, so the
 * supervisor never ends the namespace early (a SIGTERM gives the command and its jobs their
 * grace; SIGKILL ends init and everything anyway). The namespace is polled through its own
 * `/proc` (bash built-ins only: a glob, and `read -t` as the pause), ten times a second, and
 * only while something is left; EOF on the status fd means the harness is gone, and the
 * supervisor leaves, taking the namespace with it. SHLVL is put back, so the command's shell
 * sees the level it would see unsandboxed, and the command starts with 0, 1 and 2 only: bwrap
 * keeps its info fd to itself, the status fd and the saved stderr are closed for the command,
 * and any other descriptor the harness inherited is closed first thing.
 */
export const SANDBOX_SUPERVISOR = [
  // Descriptors the harness itself inherited without close-on-exec (node passes them on, and
  // so does bwrap) end here: the supervisor keeps 0-2 and the status fd, nothing else.
  `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; case $fd in 0|1|2|${SANDBOX_STATUS_FD}) ;; *) eval "exec $fd>&-" ;; esac; done`,
  "trap : INT TERM HUP QUIT",
  "SHLVL=$((SHLVL - 1))",
  // The supervisor's own stderr goes nowhere (bash would report "Terminated" for its child),
  // the command's is the real one, kept on fd 5 meanwhile.
  "exec 5>&2 2>/dev/null",
  // $2 is -c (the session's captured environment) or -lc (the login-shell setting). The
  // command gets 0-2 only: bwrap's info fd is closed before the supervisor starts, and the
  // status fd and the stderr copy are closed for the command here.
  `bash "$2" "$1" 2>&5 5>&- ${SANDBOX_STATUS_FD}>&-`,
  "status=$?",
  `printf 'exit-status %d\\n' "$status" >&${SANDBOX_STATUS_FD}`,
  'others() { local entry; for entry in /proc/[0-9]*; do case ${entry#/proc/} in 1|"$$") ;; *) return 0 ;; esac; done; return 1; }',
  `while others; do read -r -t 0.1 -u ${SANDBOX_STATUS_FD} _; [ $? -gt 128 ] || break; done`,
  'exit "$status"',
].join("\n");

/** What bwrap runs after `--`: the supervisor, with the command and the shell's flag (`-c` or `-lc`). */
export function supervisedCommand(command: string, shellFlag: "-c" | "-lc" = "-c"): string[] {
  return ["bash", "--noprofile", "--norc", "-c", SANDBOX_SUPERVISOR, "penguin-sandbox", command, shellFlag];
}

const probes = new Map<string, SandboxAvailability>();
const probesRunning = new Map<string, Promise<SandboxAvailability>>();

/** The probe's bwrap command line: the sandbox's own mounts and isolation around `true`. */
const PROBE_ARGUMENTS = [...BASE_MOUNTS, ...isolationFlags(false), "--", "true"];
/** The same without a pid namespace (nor its `/proc`): run only when the first fails, to say what failed. */
const PROBE_WITHOUT_PID_NAMESPACE = [...BASE_MOUNTS.slice(0, -2), ...isolationFlags(false).filter((flag) => flag !== "--unshare-pid"), "--", "true"];
const PROBE_TIMEOUT_MS = 10_000;

/** How one bwrap start of the probe ended. */
interface ProbeAttempt {
  error?: Error & { code?: string };
  status: number | null;
  stderr: string;
}

/** Can bwrap build a sandbox here? Probed once per executable, then remembered (and written to `memoFile` when yes). */
export function probeSandbox(bwrapPath: string = DEFAULT_BWRAP, options: ProbeOptions = {}): SandboxAvailability {
  const known = probes.get(bwrapPath);
  if (known !== undefined) return known;
  const memo = consultMemo(bwrapPath, options);
  if (memo.remembered !== undefined) return memo.remembered;
  const attempt = (args: string[]): ProbeAttempt => {
    const r = spawnSync(bwrapPath, args, { encoding: "utf8", timeout: PROBE_TIMEOUT_MS, stdio: ["ignore", "ignore", "pipe"] });
    return { ...(r.error === undefined ? {} : { error: r.error }), status: r.status, stderr: r.stderr ?? "" };
  };
  const first = attempt(PROBE_ARGUMENTS);
  const availability = probeVerdict(bwrapPath, first, probeFailedToRun(first) ? attempt(PROBE_WITHOUT_PID_NAMESPACE) : undefined);
  probes.set(bwrapPath, availability);
  if (availability.available && memo.memo !== undefined) rememberAvailable(memo.memo);
  return availability;
}

/**
 * The memo of `options.memoFile` for this bwrap and, when it holds a yes for this machine, that
 * verdict (also kept in `probes`, as a probe's would be).
 */
function consultMemo(bwrapPath: string, options: ProbeOptions): { memo?: ProbeMemo; remembered?: SandboxAvailability } {
  if (options.memoFile === undefined) return {};
  const memo = probeMemo(options.memoFile, bwrapPath, PROBE_ARGUMENTS);
  if (memo === undefined) return {};
  if (!memoSaysAvailable(memo)) return { memo };
  const remembered: SandboxAvailability = { available: true };
  probes.set(bwrapPath, remembered);
  return { remembered };
}

/**
 * probeSandbox without blocking: the same bwrap starts and the same verdict, remembered in the
 * same place (a later probeSandbox returns it at once). A host starts it early, before the work
 * that does not need the answer (the CLI starts it before a command's modules are evaluated),
 * so bwrap runs meanwhile; a second call while it runs gets the same promise, not a second start.
 * With `memoFile`, a remembered yes answers at once (a few small file reads, no bwrap).
 */
export function probeSandboxAsync(bwrapPath: string = DEFAULT_BWRAP, options: ProbeOptions = {}): Promise<SandboxAvailability> {
  const known = probes.get(bwrapPath);
  if (known !== undefined) return Promise.resolve(known);
  let running = probesRunning.get(bwrapPath);
  if (running === undefined) {
    const memo = consultMemo(bwrapPath, options);
    if (memo.remembered !== undefined) return Promise.resolve(memo.remembered);
    running = (async () => {
      const first = await probeAttemptInBackground(bwrapPath, PROBE_ARGUMENTS);
      const second = probeFailedToRun(first) ? await probeAttemptInBackground(bwrapPath, PROBE_WITHOUT_PID_NAMESPACE) : undefined;
      // A probeSandbox that ran meanwhile decided first: keep one verdict per executable.
      const availability = probes.get(bwrapPath) ?? probeVerdict(bwrapPath, first, second);
      probes.set(bwrapPath, availability);
      probesRunning.delete(bwrapPath);
      if (availability.available && memo.memo !== undefined) rememberAvailable(memo.memo);
      return availability;
    })();
    probesRunning.set(bwrapPath, running);
  }
  return running;
}

function probeAttemptInBackground(bwrapPath: string, args: string[]): Promise<ProbeAttempt> {
  return new Promise((resolve) => {
    let stderr = "";
    let timedOut = false;
    const child = spawn(bwrapPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
    }, PROBE_TIMEOUT_MS);
    timer.unref();
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ error, status: null, stderr });
    });
    child.once("close", (status) => {
      clearTimeout(timer);
      // spawnSync reports its timeout as an error (ETIMEDOUT); so does this, for one verdict.
      resolve(timedOut ? { error: Object.assign(new Error(`spawn ${bwrapPath} ETIMEDOUT`), { code: "ETIMEDOUT" }), status, stderr } : { status, stderr });
    });
  });
}

/** bwrap started and refused: the second attempt (without a pid namespace) then says what failed. */
function probeFailedToRun(first: ProbeAttempt): boolean {
  return first.error === undefined && first.status !== 0;
}

/** The verdict on the probe's attempts: `withoutPidNamespace` is there when the first attempt started and failed. */
function probeVerdict(bwrapPath: string, first: ProbeAttempt, withoutPidNamespace: ProbeAttempt | undefined): SandboxAvailability {
  if (first.error !== undefined) {
    const missing = first.error.code === "ENOENT";
    return {
      available: false,
      reason: missing
        ? `${bwrapPath} is not installed (Debian/Ubuntu: apt-get install bubblewrap)`
        : `${bwrapPath} could not be started: ${first.error.message}`,
    };
  }
  if (first.status === 0) return { available: true };
  const said = first.stderr.trim().split("\n")[0] ?? "";
  // Without its own pid namespace a command could see and signal every process of the host
  // user: no sandbox rather than a weaker one, but the reason says what exactly failed.
  const onlyPidNamespaceFails = withoutPidNamespace !== undefined && withoutPidNamespace.error === undefined && withoutPidNamespace.status === 0;
  return {
    available: false,
    reason: onlyPidNamespaceFails
      ? `${bwrapPath} cannot give commands a pid namespace with its own /proc here${said === "" ? "" : ` (${said})`}; a container may need an unmasked /proc (or --privileged)`
      : `${bwrapPath} cannot create a sandbox here${said === "" ? "" : ` (${said})`}; user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1)`,
  };
}

/** The home folders made private by default: every user's, root's, and this process's own. */
export function defaultPrivateHomes(): string[] {
  return [...new Set(["/root", "/home", homedir()])].filter((dir) => dir !== "" && mayHide(real(dir), { insideSystem: false }));
}

/**
 * Files of the host that hold secrets and lie outside any folder the sandbox hides: the
 * password hashes and the SSH host keys (private halves only). Readable by root even without
 * capabilities (it owns them), so they are masked.
 */
export function hostSecretFiles(): string[] {
  const files = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-"];
  try {
    for (const name of readdirSync("/etc/ssh")) if (/^ssh_host_.*_key$/.test(name)) files.push(`/etc/ssh/${name}`);
  } catch {
    // No /etc/ssh: nothing more to mask.
  }
  return files;
}

/** How each kind of mount of the table is spelled on bwrap's command line. */
function mountArguments(m: Mount): string[] {
  switch (m.kind) {
    case "system":
      return ["--ro-bind", "/", "/"];
    case "dev":
      return ["--dev", m.path];
    case "tmp":
    case "hide":
    case "private":
      return ["--tmpfs", m.path];
    case "proc":
      return ["--proc", m.path];
    case "bind":
      return ["--bind", m.path, m.path];
    case "ro-bind":
      return ["--ro-bind", m.path, m.path];
    case "mask":
      return ["--ro-bind", "/dev/null", m.path];
  }
}

/**
 * bwrap's arguments up to (not including) the command, for a command started in `cwd` with
 * `env`: the session's mount table (mount-table.ts) spelled as bwrap flags. Writable
 * directories that do not exist yet are created first, so the bind has a source.
 */
export function bwrapArguments(sandbox: CommandSandbox, cwd: string, env: Readonly<Record<string, string>>): string[] {
  for (const dir of sandbox.writable) mkdirSync(dir, { recursive: true });
  const table = mountTable(sandbox, env.PATH);
  const args = table.mounts.flatMap(mountArguments);
  // Last, once every mount point inside them exists: a hidden folder is empty and read-only.
  for (const m of table.mounts) if (m.kind === "hide") args.push("--remount-ro", m.path);
  args.push(...isolationFlags(sandbox.network), "--chdir", real(cwd));
  return args;
}
