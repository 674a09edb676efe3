// Every recorded provider stream, replayed over real HTTP by the testkit, through its adapter:
// the payloads are checked on content (text, thinking, tool calls with parsed arguments,
// fidelity where the recording carries a signature or encrypted reasoning), usage mapped to
// {cache_read, cache_write, output, total}, and the outcome's status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelPayload, StopReason, TokenCounts } from "@penguin/omnimessage";
import { fixturePath, listFixtures, readFixture, startTestkit, type Testkit } from "@penguin/testkit";
import type { FinishKind } from "../src/index.js";
import { completes, endpointFor, protocolOf, request, run, stringsInFixture } from "./helpers/replay.js";
import { expectWellFormed } from "./helpers/invariants.js";

interface Call {
  name: string;
  args: unknown;
  id?: string;
}

interface Expected {
  status: StopReason;
  finish?: FinishKind;
  /** Undefined means the recording reports none. */
  usage?: TokenCounts;
  thinking?: string[];
  texts?: string[];
  calls?: Call[];
  permanent?: boolean;
  error?: RegExp;
  /** Extra checks on the complete payloads (fidelity). */
  check?: (done: ModelPayload[], name: string) => void;
}

const u = (cache_read: number, cache_write: number, output: number): TokenCounts => ({
  cache_read,
  cache_write,
  output,
  total: cache_read + cache_write + output,
});

function fidelityOf(p: ModelPayload | undefined): Record<string, unknown> | undefined {
  return p !== undefined && "fidelity" in p ? p.fidelity : undefined;
}

/** Anthropic: the thinking payload carries the recording's signature, byte for byte. */
function anthropicSignature(done: ModelPayload[], name: string): void {
  const [signature] = stringsInFixture(name, "signature");
  expect(signature).toBeDefined();
  expect(fidelityOf(done.find((p) => p.type === "thinking"))).toEqual({ signature });
}

/** Gemini: every recorded thoughtSignature is on exactly one payload, in recording order. */
function geminiSignatures(done: ModelPayload[], name: string): void {
  const recorded = stringsInFixture(name, "thoughtSignature");
  expect(recorded.length).toBeGreaterThan(0);
  const carried = done.map((p) => fidelityOf(p)?.thoughtSignature).filter((s) => s !== undefined);
  expect(carried).toEqual(recorded);
}

/** Responses: the thinking payload keeps the `output_item.done` reasoning item, verbatim. */
function reasoningItem(done: ModelPayload[], name: string): void {
  const raw = fidelityOf(done.find((p) => p.type === "thinking"))?.reasoning_item;
  expect(typeof raw).toBe("string");
  if (typeof raw !== "string") return;
  const doneLine = readFixture(name)
    .split("\n")
    .find((l) => l.includes('"response.output_item.done"') && l.includes('"type":"reasoning"'));
  expect(doneLine).toBeDefined();
  expect(doneLine?.includes(raw)).toBe(true);
  const parsed: unknown = JSON.parse(doneLine ?? "{}");
  expect(JSON.parse(raw)).toEqual(typeof parsed === "object" && parsed !== null && "item" in parsed ? parsed.item : undefined);
}

const CASES: Record<string, Expected> = {
  "anthropic-messages/anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 47, 373),
    thinking: [
      "I'm working through the Euclidean algorithm to find the GCD of 1071 and 462, applying successive division until I reach a remainder of zero, which gives me 21 as the greatest common divisor.",
    ],
    texts: [
      "# Finding GCD(1071, 462) Using the Euclidean Algorithm\n\n## Step 1: Divide 1071 by 462\n$$1071 = 2 \\times 462 + 147$$\n(since 2 × 462 = 924, and 1071 − 924 = 147)\n\n## Step 2: Divide 462 by 147\n$$462 = 3 \\times 147 + 21$$\n(since 3 × 147 = 441, and 462 − 441 = 21)\n\n## Step 3: Divide 147 by 21\n$$147 = 7 \\times 21 + 0$$\n(since 7 × 21 = 147, remainder is 0)\n\n## Conclusion\nSince the remainder is now 0, the algorithm stops. The last non-zero remainder is **21**.\n\n$$\\gcd(1071, 462) = 21$$\n\n**Verification:** \n- 1071 = 21 × 51 ✓\n- 462 = 21 × 22 ✓",
    ],
    calls: [],
    check: anthropicSignature,
  },
  "anthropic-messages/anthropic-clear-thinking.1.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 69, 53),
    thinking: ["The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"],
    texts: ["925 ÷ 5 = 185"],
    calls: [],
    check: anthropicSignature,
  },
  "anthropic-messages/anthropic-code-execution-20260120-prompt-cache.1.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(6289, 6 + 3337, 198),
    thinking: [],
    texts: ["The sum of the squares of the numbers 1 through 12 is **650**."],
    calls: [],
  },
  "anthropic-messages/anthropic-issue-11719-quoted-tool-input.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 912, 118),
    texts: [],
    calls: [
      {
        name: "website_update",
        id: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN",
        args: {
          website_path: "/home/user/pace-landing",
          tasks: [
            {
              description:
                'Today you post every run to Strava, but Strava does not answer the question: "What should I do next after this run?". It is a great log, but it is not adaptive.',
              type: "feature",
              passes: false,
            },
          ],
        },
      },
    ],
  },
  "anthropic-messages/anthropic-json-tool.1.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 849, 47),
    calls: [{ name: "json", args: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] } }],
  },
  "anthropic-messages/anthropic-message-delta-input-tokens.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 61, 2), // message_delta's 61 wins over message_start's 43
    texts: ["pong"],
  },
  "anthropic-messages/anthropic-refusal.chunks.txt": {
    status: "completed",
    finish: "refusal",
    usage: u(0, 18, 5),
    thinking: [],
    texts: [],
    calls: [],
  },
  "anthropic-messages/anthropic-text.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 12, 30),
    texts: ["Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?"],
    calls: [],
  },
  "anthropic-messages/anthropic-tool-no-args.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 565, 48),
    texts: ["I'll update the issue list for you."],
    calls: [{ name: "updateIssueList", args: {}, id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP" }],
  },
  "anthropic-messages/issue-10781.1.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 624, 59),
    texts: ["Let me check."],
    calls: [{ name: "get_weather", args: { city: "San Francisco" } }],
  },
  "anthropic-messages/issue-18331-duplicate-message-start.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 99, 2), // the second message_start replaces the first; nothing doubles
    texts: ["ok"],
  },
  "gemini/gemma-4-output-usage.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 6, 1 + 76),
    thinking: [
      '*   User input: "Reply with exactly: hello"\n    *   Constraint: The response must be "exactly: hello".\n    *   Goal: Comply with the specific instruction.\n\n    *   The user wants a single word: "hello".\n\n    *   Input: "Reply with exactly: hello"\n    *   Output: "hello"',
    ],
    texts: ["hello"],
    calls: [],
  },
  "gemini/google-reasoning-gemini3.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 9, 23 + 302),
    texts: ['There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y', ""],
    calls: [],
    check: geminiSignatures,
  },
  "gemini/google-stream-tool-call-arguments.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 26, 23 + 132),
    texts: [],
    calls: [
      { name: "getWeather", args: { location: "Boston" } },
      { name: "getWeather", args: { location: "San Francisco" } },
    ],
    check: geminiSignatures,
  },
  "gemini/google-text.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 9, 23 + 185),
    texts: ['There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y', ""],
    check: geminiSignatures,
  },
  "gemini/google-tool-call-gemini3.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 29, 15 + 804),
    texts: [],
    calls: [{ name: "weather", args: { location: "San Francisco" } }],
    check: geminiSignatures,
  },
  "openai-chat/azure-model-router.1.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 15, 78),
    texts: ["Capital of Denmark."],
    calls: [],
  },
  "openai-chat/deepseek-tool-call.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(256, 374 - 256, 61),
    thinking: ["The user asks about the weather in San Francisco. I should use the weather tool."],
    texts: [],
    calls: [{ name: "weather", args: { location: "San Francisco" }, id: "call_00_IhCAliIHtM9gKpgfqbBV9873" }],
    check: (done) => expect(fidelityOf(done.find((p) => p.type === "thinking"))).toEqual({ reasoning_field: "reasoning_content" }),
  },
  "openai-chat/issue-13703-mistral-thinking.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 28, 139),
    thinking: [
      "Okay, the user is asking for the product of 17 and 23. I need to calculate this multiplication. Let me break it down:\n\nFirst, I recall that 17 multiplied by 20 is 340 (since 17 * 20 = 340).\nThen, I need to add 17 multiplied by 3, which is 51 (since 17 * 3 = 51).\nNow, add these two results together: 340 + 51 = 391.\n\nSo, 17 * 23 = 391.",
    ],
    texts: ["391"],
    calls: [],
    check: (done) => expect(fidelityOf(done.find((p) => p.type === "thinking"))).toEqual({ reasoning_field: "content_thinking" }),
  },
  "openai-chat/issue-15789-step-1.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 58, 12),
    texts: ["PRE_TOOL"],
    calls: [{ name: "weather", args: {}, id: "call_NZa7xqfefoaMI2YYHowVXVlU" }],
  },
  "openai-chat/issue-19381-thinking-reasoning.chunks.txt": {
    status: "completed",
    finish: "max_tokens",
    usage: u(0, 87, 2),
    thinking: ["We need"],
    texts: [],
    calls: [],
  },
  "openai-chat/issue-20203-empty-tool-calls.chunks.txt": {
    status: "completed",
    finish: "stop",
    thinking: ["Think more..."],
    texts: ["Hello"],
    calls: [],
  },
  "openai-chat/moonshotai-stream-tool-calls.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 11, 6),
    calls: [
      { name: "get_weather", args: { city: "Paris" }, id: "call-weather" },
      { name: "get_time", args: { zone: "UTC" }, id: "call-time" },
    ],
  },
  "openai-responses/issue-19067-parallel-tool-call-wrapper.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 34, 28),
    calls: [
      { name: "weather", args: { location: "San Francisco" }, id: "call_parallel_0" },
      { name: "cityAttractions", args: { city: "Rome" }, id: "call_parallel_1" },
    ],
  },
  "openai-responses/issue-19493-gpt-5.1-tool-call.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 45, 25),
    calls: [{ name: "get_weather", args: { city: "Beijing" }, id: "call_2FQdm3Br7Qb35YUBSkDR7kue" }],
  },
  "openai-responses/issue-20047-openai-responses.chunks.txt": {
    status: "completed",
    finish: "stop",
    usage: u(0, 12, 2),
    texts: ["OK"],
    calls: [],
  },
  "openai-responses/openai-error.1.chunks.txt": {
    status: "failed",
    permanent: true,
    error: /^test\/test-model: HTTP 200, error in stream: insufficient_quota: You exceeded your current quota/,
    thinking: [],
    texts: [],
    calls: [],
  },
  "openai-responses/openai-issue-11239.1.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 55, 25),
    thinking: [""],
    calls: [{ name: "lookupCode", args: {}, id: "call_LUBOONF2cY8HDQdBwiEQ9fk1" }],
    check: reasoningItem,
  },
  // Four responses back to back: a single replay ends at the first response.completed.
  "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt": {
    status: "completed",
    finish: "tool_use",
    usage: u(0, 134, 28),
    thinking: [
      "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
    ],
    texts: [],
    calls: [{ name: "calculator", args: { a: 12, b: 7, op: "add" }, id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn" }],
    check: reasoningItem,
  },
  "openai-responses/openai-response-failed-only.1.chunks.txt": {
    status: "failed",
    error: /rate_limit_exceeded: Request too large for gpt-4o-mini/,
    texts: [],
  },
};

function expectMatches(name: string, items: ModelPayload[], outcome: Awaited<ReturnType<typeof run>>["outcome"], want: Expected): void {
  expectWellFormed(items, outcome);
  expect(outcome.status).toBe(want.status);
  if (want.status === "completed") {
    expect(outcome.finish).toBe(want.finish);
    expect(outcome.usage).toEqual(want.usage);
  } else {
    expect(outcome.permanent === true).toBe(want.permanent === true);
    expect(outcome.errorMessage).toMatch(want.error ?? /./);
    expect(outcome.errorMessage).not.toContain("sk-test-secret");
  }
  const done = completes(items);
  if (want.thinking !== undefined) expect(done.flatMap((p) => (p.type === "thinking" ? [p.thinking] : []))).toEqual(want.thinking);
  if (want.texts !== undefined) expect(done.flatMap((p) => (p.type === "text" ? [p.text] : []))).toEqual(want.texts);
  if (want.calls !== undefined) {
    const calls = done.flatMap((p) => (p.type === "tool_call" ? [p] : []));
    expect(
      calls.map((c) => {
        const args: unknown = JSON.parse(c.arguments);
        return { name: c.name, args };
      }),
    ).toEqual(
      want.calls.map((c) => ({ name: c.name, args: c.args })),
    );
    want.calls.forEach((c, i) => {
      if (c.id !== undefined) expect(calls[i]?.tool_call_id).toBe(c.id);
      else expect(calls[i]?.tool_call_id).toMatch(/.+/);
    });
    expect(new Set(calls.map((c) => c.tool_call_id)).size).toBe(calls.length);
  }
  want.check?.(done, name);
}

describe("recorded provider streams over HTTP", () => {
  let kit: Testkit;
  beforeAll(async () => {
    kit = await startTestkit();
  });
  afterAll(async () => {
    await kit.close();
  });

  it("has an expectation for every fixture file", () => {
    expect(Object.keys(CASES).sort()).toEqual(listFixtures());
  });

  for (const name of Object.keys(CASES)) {
    it(name, async () => {
      const protocol = protocolOf(name);
      kit.enqueue({ fixture: fixturePath(name) });
      const { items, outcome } = await run(request(endpointFor(protocol, kit.baseUrl(protocol))));
      const want = CASES[name];
      if (want === undefined) throw new Error(`no case for ${name}`);
      expectMatches(name, items, outcome, want);
      expect(kit.violations).toEqual([]);
    });
  }

  it("replays each of the four back-to-back Responses steps as its own response", async () => {
    const name = "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt";
    const lines = readFixture(name).split("\n").filter((l) => l.trim() !== "");
    const steps: string[][] = [];
    for (const line of lines) {
      if (line.includes('"type": "response.created"') || line.includes('"type":"response.created"')) steps.push([]);
      steps[steps.length - 1]?.push(line);
    }
    expect(steps).toHaveLength(4);
    const dir = join(mkdtempSync(join(tmpdir(), "penguin-models-")), "openai-responses");
    mkdirSync(dir);
    const files = steps.map((s, i) => {
      const file = join(dir, `step-${i + 1}.chunks.txt`);
      writeFileSync(file, `${s.join("\n")}\n`);
      return file;
    });
    const wanted: { usage: TokenCounts; calls: Call[]; texts: string[] }[] = [
      { usage: u(0, 134, 28), calls: [{ name: "calculator", args: { a: 12, b: 7, op: "add" } }], texts: [] },
      { usage: u(0, 221, 26), calls: [{ name: "calculator", args: { a: 19, b: 3, op: "multiply" } }], texts: [] },
      { usage: u(0, 260, 26), calls: [{ name: "calculator", args: { a: 57, b: 10, op: "multiply" } }], texts: [] },
      { usage: u(0, 299, 12), calls: [], texts: ["The final result is **570**."] },
    ];
    for (const [i, file] of files.entries()) {
      kit.enqueue({ fixture: file });
      const { items, outcome } = await run(request(endpointFor("openai-responses", kit.baseUrl("openai-responses"))));
      const want = wanted[i];
      if (want === undefined) throw new Error("missing step");
      expectMatches(`step ${i + 1}`, items, outcome, {
        status: "completed",
        finish: want.calls.length > 0 ? "tool_use" : "stop",
        usage: want.usage,
        texts: want.texts,
        calls: want.calls,
      });
    }
  });
});
