// What a command's environment holds: PORT, HOST and PENGUIN_* scrubbed, pagers and editors
// pinned, the vault layered on top; and vault values appear nowhere the harness itself writes.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { OmniMessage } from "@penguin/omnimessage";
import { call, processIdOf, sandbox, waitUntil, type Sandbox } from "./helpers.js";

// Real processes start through `bash -l`, slow on a loaded machine: room, never an assertion.
const PROCESS_TESTS = { timeout: 30_000 };

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const SECRET = "vault-value-7f3a9c2e1b";

function hostEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: "7364",
    HOST: "0.0.0.0",
    PENGUIN_HOME: "/srv/penguin",
    PENGUIN_SERVER_TOKEN: "internal",
    PAGER: "less",
    GIT_PAGER: "delta",
    EDITOR: "vim",
    GIT_TERMINAL_PROMPT: "1",
    KEEP_ME: "kept",
    SECRET_X: "host-value",
  };
}

describe("child environment", PROCESS_TESTS, () => {
  it("drops PORT, HOST and PENGUIN_*, pins pagers and editors, keeps the rest", async () => {
    box = sandbox({ baseEnv: hostEnv() });
    const r = await call(box.env, "exec_command", {
      cmd: 'echo "PORT=${PORT-unset} HOST=${HOST-unset}"; env | grep -c "^PENGUIN_" || true; echo "$PAGER $GIT_PAGER $EDITOR $VISUAL $GIT_EDITOR $GIT_TERMINAL_PROMPT $KEEP_ME"',
      description: "show env",
    });
    expect(r.output).toBe("PORT=unset HOST=unset\n0\ncat cat true true true 0 kept\n[exit code: 0]");
  });

  it("layers the vault on top: its values reach the child, over the host's", async () => {
    box = sandbox({ baseEnv: hostEnv(), vault: { SECRET_X: SECRET, API_TOKEN: "tok-123" } });
    const r = await call(box.env, "exec_command", { cmd: 'printf %s "$SECRET_X" > secret.out; echo "$API_TOKEN"', description: "use vault" });
    expect(readFileSync(join(box.workspace, "secret.out"), "utf8")).toBe(SECRET);
    // The child sees the value; the model, the stream and the trace see only its name.
    expect(r.output).toBe("[vault:API_TOKEN]\n[exit code: 0]");
    expect(JSON.stringify(r.messages)).not.toContain("tok-123");
  });

  it("redacts vault values from long, truncated and archived output", async () => {
    box = sandbox({ baseEnv: hostEnv(), vault: { SECRET_X: SECRET }, limits: { outputChars: 50 } });
    const r = await call(box.env, "exec_command", { cmd: 'for i in $(seq 1 200); do printf "line %s %s\\n" "$i" "$SECRET_X"; done', description: "leak attempt" });
    const everything = JSON.stringify(r.messages);
    expect(everything).toContain("[vault:SECRET_X]");
    expect(everything).not.toContain(SECRET);
    const archive = /saved at (\S+?)\]/.exec(r.output)?.[1];
    expect(archive).toBeDefined();
    const archived = readFileSync(archive!, "utf8");
    expect(archived.split("\n").filter((l) => l.includes("[vault:SECRET_X]"))).toHaveLength(200);
    expect(archived).not.toContain(SECRET);
  });

  it("never puts a vault value in anything the harness writes itself", async () => {
    box = sandbox({ baseEnv: hostEnv(), vault: { SECRET_X: SECRET }, limits: { outputChars: 20 } });
    const seen: OmniMessage[] = [];
    const run = async (name: string, args: unknown): Promise<void> => {
      seen.push(...(await call(box!.env, name, args)).messages);
    };
    await run("exec_command", { cmd: "seq 1 100", description: "long, archived" });
    await run("exec_command", { cmd: "exit 9", description: "fails" });
    await run("exec_command", { cmd: "sleep 0.3", yield_time_ms: 250, description: "backgrounded" });
    const bg = await call(box.env, "exec_command", { cmd: "echo finished", run_in_background: true, description: "notify me" });
    seen.push(...bg.messages);
    await waitUntil(() => box!.env.listProcesses().every((p) => p.status !== "running"), "all exited");
    await run("read_file", { file_path: "missing.txt" });
    await run("input_command", { process_id: "p404", chars: "x", description: "nope" });
    await run("exec_command", { cmd: "echo x", workdir: "nowhere", description: "bad dir" });
    await run("nonexistent_tool", {});
    const everything = JSON.stringify({
      seen,
      processes: box.env.listProcesses(),
      notices: box.env.drainNotices(),
      tools: box.env.listTools(),
      archives: readdirSync(join(box.scratchpad, "truncated-tool-output")).map((f) =>
        readFileSync(join(box!.scratchpad, "truncated-tool-output", f), "utf8"),
      ),
    });
    expect(everything).toContain("99\\n100"); // the archive was read
    expect(everything).toContain(processIdOf(bg.output)); // the collection is not empty
    expect(everything).toContain("background_task_done");
    expect(everything).not.toContain(SECRET);
  });
});
