// An API key is only ever sent to its own model entry's base URL, at the session level: one
// project with two model entries on two testkit servers (two protocols, two keys), a session
// on each, each running a task with a tool call and an out-of-band title request, then both
// resumed from their traces by a fresh agent and run again. Each server must see only its
// own key, in every request, in headers and bodies alike. (packages/models/test/credentials
// covers the gateway alone; this covers what core builds around it, resume included.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { allow, collect } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";
import { writeProjectConfig } from "../../src/state/project-config.js";

const KEY_A = "sk-alpha-only-7f3e9a1c";
const KEY_B = "sk-beta-only-2b8d4e6f";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function everything(kit: Testkit): string {
  return kit.requests.map((r) => `${JSON.stringify(r.headers)}\n${r.path}\n${r.rawBody}`).join("\n");
}

describe("API keys stay with their own model entry", () => {
  it("two entries, two servers: each sees only its own key, before and after resume", async () => {
    const script = (tag: string) => [
      { toolCalls: [{ name: "exec_command", arguments: { cmd: `echo ${tag}`, description: "echo" } }] },
      { text: `${tag} done` },
      { text: `${tag} title` },
      { text: `${tag} resumed` },
    ];
    const a = await startTestkit({ script: script("alpha") });
    const b = await startTestkit({ script: script("beta") });
    const root = mkdtempSync(join(tmpdir(), "penguin-keys-"));
    const workspace = mkdtempSync(join(tmpdir(), "penguin-keys-ws-"));
    cleanups.push(() => a.close(), () => b.close(), () => rmSync(root, { recursive: true, force: true }), () => rmSync(workspace, { recursive: true, force: true }));

    const agent = await createAgent({ root, env: {} });
    writeProjectConfig(agent.paths.projectConfig, {
      default_model: { provider: "alpha", model_id: "model-a" },
      models: [
        { provider: "alpha", model_id: "model-a", client_type: "openai-chat", base_url: a.baseUrl("openai-chat"), api_key: KEY_A },
        { provider: "beta", model_id: "model-b", client_type: "anthropic-messages", base_url: b.baseUrl("anthropic-messages"), api_key: KEY_B },
      ],
    });
    const sa = await agent.createSession({ workspaceDir: workspace, provider: "alpha", modelId: "model-a" });
    const sb = await agent.createSession({ workspaceDir: workspace, provider: "beta", modelId: "model-b" });
    await Promise.all([collect(sa.run("task a", { approve: allow })), collect(sb.run("task b", { approve: allow }))]);
    expect(await sa.generateTitle()).toBeDefined();
    expect(await sb.generateTitle()).toBeDefined();
    await sa.dispose();
    await sb.dispose();

    const again = await createAgent({ root, env: {} });
    const ra = await again.resumeSession({ sessionId: sa.id });
    const rb = await again.resumeSession({ sessionId: sb.id });
    await Promise.all([collect(ra.run("more a", { approve: allow })), collect(rb.run("more b", { approve: allow }))]);
    await ra.dispose();
    await rb.dispose();

    expect(a.requests).toHaveLength(4);
    expect(b.requests).toHaveLength(4);
    for (const r of a.requests) expect(r.headers["authorization"]).toBe(`Bearer ${KEY_A}`);
    for (const r of b.requests) expect(r.headers["x-api-key"]).toBe(KEY_B);
    expect(everything(a)).not.toContain(KEY_B);
    expect(everything(b)).not.toContain(KEY_A);
    expect(a.violations).toEqual([]);
    expect(b.violations).toEqual([]);
  });
});
