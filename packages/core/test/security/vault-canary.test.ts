// A vault canary never reaches any file under the data root (traces, archives, scratchpad,
// configs other than the vault itself) nor anything the session streams, even when the model
// runs commands that print it and reads files that contain it.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";
import { setVaultValue } from "../../src/state/vault.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const CANARY = "canary-7d1e4b9a2c5f";

describe("vault canary", () => {
  it("never lands in a file under the data root or in the stream", async () => {
    h = await startHarness({
      entry: { context_window: 8192 },
      script: [
        {
          toolCalls: [
            { name: "exec_command", arguments: { cmd: "echo token=$DEPLOY_TOKEN; printenv | grep DEPLOY_", description: "print the secret" } },
            { name: "exec_command", arguments: { cmd: 'for i in $(seq 1 3000); do echo "$i $DEPLOY_TOKEN"; done', description: "long output, archived" } },
            { name: "read_file", arguments: { file_path: "leak.txt" } },
          ],
          usage: { input: 7000 },
        },
        { text: "[summary]\nChecked the deploy token.\n[/summary]" },
        { text: "done" },
      ],
    });
    await setVaultValue(h.agent.paths.vault, "DEPLOY_TOKEN", CANARY);
    writeFileSync(join(h.workspace, "leak.txt"), `the token is ${CANARY}\n`);
    const agent = await createAgent({ root: h.root, env: {} });
    const session = await agent.createSession({ workspaceDir: h.workspace });
    const streamed = await collect(session.run("show me the token", { approve: allow }));
    await session.dispose();

    expect(JSON.stringify(streamed)).not.toContain(CANARY);
    expect(JSON.stringify(streamed)).toContain("[vault:DEPLOY_TOKEN]");
    // The model never saw it either.
    expect(h.kit.requests.map((r) => r.rawBody).join("\n")).not.toContain(CANARY);
    // A compaction happened (the summary and digest files exist) and traces rotated.
    const files = filesUnder(h.root).filter((f) => !f.endsWith(".vault.toml"));
    expect(files.some((f) => f.includes("truncated-tool-output"))).toBe(true);
    expect(files.filter((f) => f.endsWith(".jsonl")).length).toBeGreaterThanOrEqual(2);
    for (const f of files) expect(readFileSync(f, "utf8"), f).not.toContain(CANARY);
    // The system prompt names the key, never the value.
    expect(session.systemPrompt).toContain("DEPLOY_TOKEN");
  });

  it("never lands anywhere in its common encodings either: reversed, hex, base64 (also inside a longer stream)", async () => {
    const encodings = [
      'printf %s "$DEPLOY_TOKEN" | rev',
      'printf %s "$DEPLOY_TOKEN" | od -An -tx1 | tr -d " \\n"',
      'printf %s "$DEPLOY_TOKEN" | xxd -p -u',
      'printf %s "$DEPLOY_TOKEN" | base64',
      'printf %s "$DEPLOY_TOKEN" | basenc --base64url',
      'printf "x%s" "$DEPLOY_TOKEN" | base64',
      'printf "xy%s and more" "$DEPLOY_TOKEN" | base64 -w0',
    ];
    h = await startHarness({
      script: [{ toolCalls: encodings.map((cmd, i) => ({ name: "exec_command", arguments: { cmd, description: `encoding ${i}` } })) }, { text: "done" }],
    });
    await setVaultValue(h.agent.paths.vault, "DEPLOY_TOKEN", CANARY);
    const agent = await createAgent({ root: h.root, env: {} });
    const session = await agent.createSession({ workspaceDir: h.workspace });
    const streamed = JSON.stringify(await collect(session.run("encode the token", { approve: allow })));
    await session.dispose();
    const bytes = Buffer.from(CANARY);
    const forms = [
      [...CANARY].reverse().join(""),
      bytes.toString("hex"),
      bytes.toString("hex").toUpperCase(),
      bytes.toString("base64"),
      bytes.toString("base64url"),
      Buffer.concat([Buffer.from("x"), bytes]).toString("base64").slice(4, 24),
      Buffer.concat([Buffer.from("xy"), bytes]).toString("base64").slice(4, 24),
    ];
    expect(streamed.match(/\[vault:DEPLOY_TOKEN\]/g)?.length ?? 0).toBeGreaterThanOrEqual(7);
    const modelSaw = h.kit.requests.map((r) => r.rawBody).join("\n");
    const files = filesUnder(h.root).filter((f) => !f.endsWith(".vault.toml"));
    for (const form of forms) {
      expect(streamed, form).not.toContain(form);
      expect(modelSaw, form).not.toContain(form);
      for (const f of files) expect(readFileSync(f, "utf8"), `${f}: ${form}`).not.toContain(form);
    }
  });
});
