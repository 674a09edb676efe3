// `--help` and `--version`: complete help for every command, exit 0, and nothing loaded
// that needs a data root (they run with an empty environment and no config).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { cleanEnv } from "./helpers/world.js";

beforeAll(ensureBuilt, 300_000);
const env = cleanEnv({ PENGUIN_HOME: "/nonexistent/penguin-home" });

describe("penguin --help / --version", { timeout: 60_000 }, () => {
  it("prints the package version", async () => {
    const version = /"version":\s*"([^"]+)"/.exec(readFileSync(new URL("../package.json", import.meta.url), "utf8"))?.[1];
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-v"]) {
      const r = await runCli([flag], { env });
      expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
    }
  });

  it("lists every command, the exit codes and the environment; no arguments prints the same help", async () => {
    const r = await runCli(["--help"], { env });
    expect(r.code).toBe(0);
    for (const word of ["run [options]", "chat [options]", "config", "sessions [options]", "trace", "Exit codes:", "130", "PENGUIN_HOME", "NO_COLOR", "PENGUIN_RETRY_DELAY_SCALE"]) {
      expect(r.stdout).toContain(word);
    }
    expect((await runCli([], { env })).stdout).toBe(r.stdout);
  });

  it("answers --help and --version of every command at once, without creating or reading the data root", async () => {
    const home = mkdtempSync(join(tmpdir(), "penguin-help-"));
    const root = join(home, "data");
    try {
      const envWithRoot = cleanEnv({ PENGUIN_HOME: root, HOME: home });
      const commands = [["web"], ["server"], ["run"], ["chat"], ["sessions"], ["config", "model", "add"], ["config", "model", "test"], ["trace", "show"]];
      for (const command of commands) {
        for (const flag of ["--help", "-h"]) {
          const r = await runCli([...command, flag], { env: envWithRoot });
          expect(r.code, `${command.join(" ")} ${flag}`).toBe(0);
          expect(r.stdout, `${command.join(" ")} ${flag}`).toContain(`Usage: penguin ${command.join(" ")}`);
          expect(r.stderr).toBe("");
        }
      }
      expect((await runCli(["web", "--version"], { env: envWithRoot })).code).toBe(0);
      expect(existsSync(root)).toBe(false);
      expect(readdirSync(home)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("documents every flag of each command", async () => {
    const expected: Array<[string[], string[]]> = [
      [["run"], ["--message", "--provider", "--model-id", "--project-id", "--agent-id", "--workspace", "--approve", "--thinking", "--resume", "--json", "--partials", "--root", "--verbose", "--sandbox", "--sandbox-network"]],
      [["chat"], ["--provider", "--model-id", "--workspace", "--approve", "--thinking", "--resume [sid]", "--verbose", "--sandbox", "--sandbox-network", "/compact", "/clear", "/thinking", "/model", "/exit", "Ctrl-C"]],
      [["config", "model", "add"], ["--provider", "--model-id", "--api-key", "--base-url", "--context-window", "--max-tokens", "--client-type", "--no-vision", "--no-fast-mode", "--price-cache-read", "--price-cache-write", "--price-output", "--set-default", "--project-id", "--root", "--check", "--no-key", "--force"]],
      [["config", "model", "test"], ["<provider>", "<model-id>", "--project-id", "--root"]],
      [["config", "model", "default"], ["--provider", "--model-id"]],
      [["config", "model", "vision"], ["--provider", "--model-id"]],
      [["config", "model", "remove"], ["--provider", "--model-id"]],
      [["config", "model", "list"], ["--project-id", "--root"]],
      [["config", "vault", "set"], ["--key", "--value", "--agent-id"]],
      [["config", "vault", "list"], ["--agent-id"]],
      [["config", "vault", "remove"], ["--key", "--agent-id"]],
      [["sessions"], ["--all", "--limit"]],
      [["trace", "show"], ["<sid>", "--verbose"]],
      [["server"], ["--root", "--port", "--host", "--reindex", "--database", "--no-sandbox", "--sandbox-network", "--workspace-root", "--allowed-host", "migrate-db"]],
      [["server", "migrate-db"], ["--to", "--root"]],
      [["web"], ["--root", "--port", "--host", "--no-open", "--no-sandbox", "--sandbox-network", "--workspace-root", "--allowed-host"]],
      [["attach"], ["<sid>", "--server", "--user", "--root", "PENGUIN_PASSWORD", "Ctrl-C"]],
      [["docs"], ["--port", "--host", "--dir", "--no-open"]],
    ];
    for (const [command, flags] of expected) {
      const r = await runCli([...command, "--help"], { env });
      expect(r.code, command.join(" ")).toBe(0);
      for (const flag of flags) expect(r.stdout, `${command.join(" ")} ${flag}`).toContain(flag);
    }
  });
});
