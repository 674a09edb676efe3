// `--help` and `--version`: complete help for every command, exit 0, and nothing loaded
// that needs a data root (they run with an empty environment and no config).
import { readFileSync } from "node:fs";
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

  it("documents every flag of each command", async () => {
    const expected: Array<[string[], string[]]> = [
      [["run"], ["--message", "--provider", "--model-id", "--project-id", "--agent-id", "--workspace", "--approve", "--thinking", "--resume", "--json", "--partials", "--root", "--verbose"]],
      [["chat"], ["--provider", "--model-id", "--workspace", "--approve", "--thinking", "--resume [sid]", "--verbose", "/compact", "/clear", "/thinking", "/model", "/exit", "Ctrl-C"]],
      [["config", "model", "add"], ["--provider", "--model-id", "--api-key", "--base-url", "--context-window", "--max-tokens", "--client-type", "--no-vision", "--no-fast-mode", "--price-cache-read", "--price-cache-write", "--price-output", "--set-default", "--project-id", "--root", "--check"]],
      [["config", "model", "default"], ["--provider", "--model-id"]],
      [["config", "model", "vision"], ["--provider", "--model-id"]],
      [["config", "model", "remove"], ["--provider", "--model-id"]],
      [["config", "model", "list"], ["--project-id", "--root"]],
      [["config", "vault", "set"], ["--key", "--value", "--agent-id"]],
      [["config", "vault", "list"], ["--agent-id"]],
      [["config", "vault", "remove"], ["--key", "--agent-id"]],
      [["sessions"], ["--all", "--limit"]],
      [["trace", "show"], ["<sid>", "--verbose"]],
      [["attach"], ["<sid>", "--server", "--user", "--root", "PENGUIN_PASSWORD", "Ctrl-C"]],
      [["server"], ["--workspace-root", "--allowed-host"]],
    ];
    for (const [command, flags] of expected) {
      const r = await runCli([...command, "--help"], { env });
      expect(r.code, command.join(" ")).toBe(0);
      for (const flag of flags) expect(r.stdout, `${command.join(" ")} ${flag}`).toContain(flag);
    }
  });
});
