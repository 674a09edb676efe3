// Makes a runnable tree of an older commit for the side-by-side server bench: the files of
// `commit` (git archive, so the repository's own worktree and index are not touched) unpacked
// into a folder of the temp directory, then its dependencies installed with the package
// manager that commit used (package-lock.json: npm ci; pnpm-lock.yaml: pnpm). A folder that
// was already prepared for the same commit is reused.
//
// The default commit is the last one whose server ran on Hono: the parent of the commit that
// replaced Hono with express 5 (found with `git log -S'from "hono"' -- packages/server`).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const LAST_HONO_COMMIT = "df517bd";

const READY_MARK = ".penguin-bench-ready";

export function prepareTree(commit: string = LAST_HONO_COMMIT, repo: string = process.cwd(), log: (line: string) => void = () => undefined): string {
  const sha = execFileSync("git", ["rev-parse", "--verify", `${commit}^{commit}`], { cwd: repo, encoding: "utf8" }).trim();
  const dir = join(tmpdir(), `penguin-bench-tree-${sha.slice(0, 12)}`);
  if (existsSync(join(dir, READY_MARK))) return dir;
  mkdirSync(dir, { recursive: true });
  log(`unpacking ${sha.slice(0, 12)} into ${dir}`);
  const archive = spawnSync("git", ["archive", "--format=tar", sha], { cwd: repo, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${sha} failed: ${archive.stderr.toString()}`);
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
  const usesPnpm = existsSync(join(dir, "pnpm-lock.yaml"));
  const [cmd, args] = usesPnpm ? ["npx", ["--yes", "pnpm@10.34.8", "install", "--frozen-lockfile"]] : ["npm", ["ci", "--no-audit", "--no-fund"]];
  log(`installing its dependencies: ${cmd} ${args.join(" ")}`);
  const install = spawnSync(cmd, args, { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
  if (install.status !== 0) throw new Error(`${cmd} ${args.join(" ")} in ${dir} failed (exit ${install.status})`);
  writeFileSync(join(dir, READY_MARK), `${sha}\n`);
  return dir;
}
