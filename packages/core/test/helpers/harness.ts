// Test harness for engine scenarios: a real testkit model server, a real data root and
// workspace in temp dirs, a project config pointing a real model entry at the testkit, and
// an injected reconnect sleep that records the waits instead of sleeping.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestkit, type ScriptStep, type Testkit, type WireProtocol } from "@penguin/testkit";
import { parseTraceText } from "../../src/trace/reader.js";
import { createAgent, type Agent, type CreateAgentOptions } from "../../src/agent.js";
import { writeProjectConfig, type ModelEntry } from "../../src/state/project-config.js";
import type { SleepFn } from "../../src/engine/reconnect.js";
import type { OmniMessage } from "@penguin/omnimessage";
import { commandsSandboxed } from "./sandbox-mode.js";

export const TEST_PROVIDER = "testkit";
export const TEST_MODEL = "scripted-model";
export const TEST_KEY = "sk-test-0123456789";

export interface Harness {
  kit: Testkit;
  root: string;
  workspace: string;
  agent: Agent;
  protocol: WireProtocol;
  /** Waits the engine asked for, in order. */
  sleeps: number[];
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  script?: ScriptStep[];
  protocol?: WireProtocol;
  entry?: Partial<ModelEntry>;
  agentId?: string;
  /** Writes extra lines into system_config.yaml after the agent state is created. */
  systemConfigPatch?: (yaml: string) => string;
  /** More createAgent options (environment seams). */
  agentOptions?: Partial<CreateAgentOptions>;
  /** More model entries and a vision model, for describe_image. */
  extraModels?: ModelEntry[];
  visionModel?: { provider: string; model_id: string };
}

export const noSleep = (sleeps: number[]): SleepFn => async (ms) => {
  sleeps.push(ms);
};

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const protocol = options.protocol ?? "openai-chat";
  const kit = await startTestkit({ script: options.script ?? [] });
  const root = mkdtempSync(join(tmpdir(), "penguin-root-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-ws-"));
  const entry: ModelEntry = {
    provider: TEST_PROVIDER,
    model_id: TEST_MODEL,
    client_type: protocol,
    base_url: kit.baseUrl(protocol),
    api_key: TEST_KEY,
    context_window: 128000,
    ...options.entry,
  };
  const sleeps: number[] = [];
  const agent0 = await createAgent({ root, agentId: options.agentId, env: {}, sleep: noSleep(sleeps) });
  writeProjectConfig(agent0.paths.projectConfig, {
    default_model: { provider: entry.provider, model_id: entry.model_id },
    ...(options.visionModel ? { vision_model: options.visionModel } : {}),
    models: [entry, ...(options.extraModels ?? [])],
  });
  if (options.systemConfigPatch) {
    const { writeFileSync } = await import("node:fs");
    const file = agent0.paths.systemConfig;
    writeFileSync(file, options.systemConfigPatch(readFileSync(file, "utf8")));
  }
  // In a sandboxed run (sandbox-mode.ts) every session's commands run in bwrap.
  const confined: Partial<CreateAgentOptions> = commandsSandboxed() ? { sandbox: { enabled: true } } : {};
  const agent = await createAgent({ root, agentId: options.agentId, env: {}, sleep: noSleep(sleeps), ...confined, ...options.agentOptions });
  return {
    kit,
    root,
    workspace,
    agent,
    protocol,
    sleeps,
    async cleanup() {
      await kit.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export async function collect(gen: AsyncIterable<OmniMessage>, onMessage?: (m: OmniMessage) => void): Promise<OmniMessage[]> {
  const out: OmniMessage[] = [];
  for await (const m of gen) {
    out.push(m);
    onMessage?.(m);
  }
  return out;
}

/** The envelopes of a trace file. */
export function traceOf(file: string): OmniMessage[] {
  return parseTraceText(readFileSync(file, "utf8")).messages;
}

/** A compact shape of messages for order assertions: "model_msg:text:user", "event_msg:request_end:completed". */
export function shapeOf(messages: OmniMessage[]): string[] {
  return messages.map((m) => {
    if (m.type === "session_meta") return "session_meta";
    if (m.type === "model_msg") return `${m.payload.type}${"role" in m.payload ? `:${m.payload.role}` : ""}`;
    const p = m.payload;
    if (p.type === "request_end") return `request_end:${p.status}`;
    if (p.type === "approval_decision") return `approval_decision:${p.decision}`;
    return p.type;
  });
}

export const allow = async () => "allow" as const;

/**
 * The text of a normalised tool result. Gemini carries results as a JSON object
 * (`functionResponse.response`), which the testkit normalises to its JSON text; our adapter
 * puts the output under `output`.
 */
export function resultText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === "object" && v !== null && "output" in v && typeof (v as { output: unknown }).output === "string") return (v as { output: string }).output;
  } catch {
    // plain text result
  }
  return text;
}
