// Fidelity through the trace: a real recorded stream (replayed by the testkit) carries what
// its provider needs back (an Anthropic thinking signature, a Responses reasoning item with
// encrypted content, a Gemini thoughtSignature, DeepSeek reasoning_content). The session is
// resumed from its trace alone, and the next request's raw body holds those bytes exactly as
// the provider sent them, on each of the four protocols.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { fixturePath, type ScriptStep, type WireProtocol } from "@penguin/testkit";
import { allow, collect, startHarness, type Harness } from "../helpers/harness.js";
import { createAgent } from "../../src/agent.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const lines = (name: string) => readFileSync(fixturePath(name), "utf8").split("\n").filter((l) => l.trim() !== "");

/** The raw text of the JSON value that follows `"key":` in `line` (braces matched, strings respected). */
function rawValue(line: string, key: string): string {
  const at = line.indexOf(`"${key}":`) + key.length + 3;
  let depth = 0;
  let inString = false;
  for (let i = at; i < line.length; i++) {
    const ch = line[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return line.slice(at, i + 1);
    }
  }
  throw new Error(`no value for ${key}`);
}

interface Case {
  protocol: WireProtocol;
  fixture: string;
  /** The byte runs the next request must contain, taken from the recording. */
  expected: () => string[];
  /** The recording ends in a tool call: the engine answers it with one more request. */
  toolTurn: boolean;
}

const CASES: Case[] = [
  {
    protocol: "anthropic-messages",
    fixture: "anthropic-messages/anthropic-clear-thinking.1.chunks.txt",
    toolTurn: false,
    expected: () => {
      const sig = lines("anthropic-messages/anthropic-clear-thinking.1.chunks.txt").map((l) => JSON.parse(l)).find((e) => e.delta?.type === "signature_delta").delta.signature;
      return [`"signature":${JSON.stringify(sig)}`];
    },
  },
  {
    protocol: "openai-responses",
    fixture: "openai-responses/openai-issue-11239.1.chunks.txt",
    toolTurn: true,
    expected: () => {
      const done = lines("openai-responses/openai-issue-11239.1.chunks.txt").find((l) => l.includes('"response.output_item.done"') && l.includes('"type":"reasoning"'))!;
      return [rawValue(done, "item")];
    },
  },
  {
    protocol: "gemini",
    fixture: "gemini/google-text.chunks.txt",
    toolTurn: false,
    expected: () => {
      const sig = lines("gemini/google-text.chunks.txt").map((l) => JSON.parse(l)).flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).find((p: { thoughtSignature?: string }) => p.thoughtSignature !== undefined).thoughtSignature;
      return [`"thoughtSignature":${JSON.stringify(sig)}`];
    },
  },
  {
    protocol: "openai-chat",
    fixture: "openai-chat/deepseek-tool-call.chunks.txt",
    toolTurn: true,
    expected: () => {
      const reasoning = lines("openai-chat/deepseek-tool-call.chunks.txt").map((l) => JSON.parse(l)).map((c) => c.choices?.[0]?.delta?.reasoning_content ?? "").join("");
      return [`"reasoning_content":${JSON.stringify(reasoning)}`];
    },
  },
];

describe.each(CASES)("fidelity survives resume over $protocol", (c) => {
  it("re-sends the provider's bytes unchanged after a resume from the trace", async () => {
    const script: ScriptStep[] = [{ fixture: fixturePath(c.fixture), protocol: c.protocol }];
    if (c.toolTurn) script.push({ text: "answered the tool" });
    script.push({ text: "after resume" });
    h = await startHarness({ protocol: c.protocol, script });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("first", { approve: allow }));
    await session.dispose();

    const resumed = await (await createAgent({ root: h.root, env: {} })).resumeSession({ sessionId: session.id });
    await collect(resumed.run("second", { approve: allow }));
    await resumed.dispose();
    const body = h.kit.requests.at(-1)!.rawBody;
    for (const bytes of c.expected()) expect(body).toContain(bytes);
    expect(h.kit.violations).toEqual([]);
  });
});
