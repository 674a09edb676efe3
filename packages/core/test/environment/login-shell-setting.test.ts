// The login-shell setting, end to end through an agent's session: by default a command's bash
// is not a login shell (it runs in the login environment captured once); system_config's
// `tools.exec.loginShell: true`, or PENGUIN_EXEC_LOGIN_SHELL=1 in the agent's environment,
// runs every command in a login shell again. Bash's own `login_shell` option tells which.
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const ASK = { toolCalls: [{ name: "exec_command", arguments: { cmd: "shopt -q login_shell && echo shell=login || echo shell=plain", description: "which shell" } }] };

async function shellKind(options: Parameters<typeof startHarness>[0]): Promise<string> {
  h = await startHarness({ ...options, script: [ASK, { text: "seen" }] });
  const session = await h.agent.createSession({ workspaceDir: h.workspace });
  const messages = await collect(session.run("which shell?", { approve: allow }));
  await session.dispose();
  const outputs = messages.flatMap((m) => (m.type === "model_msg" && m.payload.type === "tool_call_output" ? [m.payload.output] : []));
  return /shell=(\w+)/.exec(outputs.join("\n"))?.[1] ?? `no answer in ${JSON.stringify(outputs)}`;
}

describe("the login-shell setting", { timeout: 30_000 }, () => {
  it("is off by default: commands run bash -c in the captured environment", async () => {
    expect(await shellKind({})).toBe("plain");
  });

  it("tools.exec.loginShell: true in system_config.yaml runs each command in a login shell", async () => {
    const patch = (yaml: string): string => {
      const patched = yaml.replace(/^ {2}mcpServers: \[\]$/m, "  mcpServers: []\n  exec:\n    loginShell: true");
      if (patched === yaml) throw new Error("the default system_config.yaml no longer has `  mcpServers: []` under tools");
      return patched;
    };
    expect(await shellKind({ systemConfigPatch: patch })).toBe("login");
  });

  it("PENGUIN_EXEC_LOGIN_SHELL=1 in the agent's environment does the same", async () => {
    expect(await shellKind({ agentOptions: { env: { PENGUIN_EXEC_LOGIN_SHELL: "1" } } })).toBe("login");
  });
});
