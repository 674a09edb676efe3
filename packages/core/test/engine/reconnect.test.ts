// Reconnect: failed, timeout and malformed responses are retried with the documented
// back-off (injected, never slept), resending the input with a [turn_retried] note; auth
// and permanent failures stop at once.
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_PROTOCOLS } from "@penguin/testkit";
import { allow, collect, shapeOf, startHarness, type Harness } from "../helpers/harness.js";
import { reconnectDelayMs } from "../../src/engine/reconnect.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const endsOf = (ms: Awaited<ReturnType<typeof collect>>) =>
  ms.flatMap((m) => (m.type === "event_msg" && m.payload.type === "request_end" ? [m.payload] : []));

describe.each(WIRE_PROTOCOLS)("reconnect over %s", (protocol) => {
  it("has the documented delays", () => {
    expect([1, 2, 3, 4, 5, 6].map(reconnectDelayMs)).toEqual([2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it("retries after a 500 and resends the input with [turn_retried]", async () => {
    h = await startHarness({ protocol, script: [{ fault: { kind: "http", status: 500, body: "upstream down" } }, { text: "recovered" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("hello", { approve: allow }));
    expect(endsOf(messages)).toEqual([
      { type: "request_end", status: "failed", error_message: expect.stringContaining("500"), attempt: 1, retry_in_ms: 2000, max_attempts: 6 },
      { type: "request_end", status: "completed", attempt: 2 },
    ]);
    expect(h.sleeps).toEqual([2000]);
    const user = h.kit.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.text ?? "");
    expect(user[0]).toBe("hello");
    expect(user[1]).toMatch(/^\[turn_retried\]\nAttempt 1 of this turn failed/);
    expect(session.history()).toHaveLength(3);
    await session.dispose();
  });

  it("retries after a socket reset mid-stream, reporting what was produced", async () => {
    h = await startHarness({ protocol, script: [{ text: "partial words here and more words after", chunkSize: 3, fault: { kind: "reset", afterEvents: 8 } }, { text: "second try" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("hi", { approve: allow }));
    const ends = endsOf(messages);
    expect(["failed", "malformed"]).toContain(ends[0]!.status);
    expect(ends[1]).toMatchObject({ status: "completed", attempt: 2 });
    const note = h.kit.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.text ?? "")[1];
    expect(note).toContain("Text so far:");
    await session.dispose();
  });

  it("backs off 2, 4, 8, 16, 30 s and gives up after 5 retries", async () => {
    h = await startHarness({ protocol, script: Array.from({ length: 6 }, () => ({ fault: { kind: "http" as const, status: 503 } })) });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("hello", { approve: allow }));
    expect(h.sleeps).toEqual([2000, 4000, 8000, 16000, 30000]);
    expect(h.kit.requests).toHaveLength(6);
    const ends = endsOf(messages);
    expect(ends.at(-1)).toMatchObject({ status: "failed", attempt: 6 });
    expect(ends.at(-1)).not.toHaveProperty("retry_in_ms");
    expect(shapeOf(messages).at(-1)).toBe("abort");
    expect(session.carryOver().length).toBeGreaterThan(0);
    await session.dispose();
  });

  it("never retries auth (401) and says so", async () => {
    h = await startHarness({ protocol, script: [{ fault: { kind: "http", status: 401, body: "bad key" } }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("hello", { approve: allow }));
    expect(h.kit.requests).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
    expect(endsOf(messages)).toEqual([expect.objectContaining({ status: "auth", attempt: 1 })]);
    const abort = messages.at(-1);
    expect(abort?.payload).toMatchObject({ type: "abort", reason: expect.stringMatching(/^auth/) });
    // The key never appears in anything the host sees.
    expect(JSON.stringify(messages)).not.toContain("sk-test-0123456789");
    await session.dispose();
  });

  it("never retries a permanent 400", async () => {
    h = await startHarness({ protocol, script: [{ fault: { kind: "http", status: 400, body: "bad request" } }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    const messages = await collect(session.run("hello", { approve: allow }));
    expect(h.kit.requests).toHaveLength(1);
    expect(endsOf(messages)[0]).toMatchObject({ status: "failed" });
    await session.dispose();
  });

  it("never retries a configuration error (404, 501) and flags it on request_end and in the abort reason", async () => {
    for (const status of [404, 501]) {
      h = await startHarness({ protocol, script: [{ fault: { kind: "http", status } }] });
      const session = await h.agent.createSession({ workspaceDir: h.workspace });
      const messages = await collect(session.run("hello", { approve: allow }));
      expect(h.kit.requests).toHaveLength(1);
      expect(h.sleeps).toEqual([]);
      expect(endsOf(messages)).toEqual([{ type: "request_end", status: "failed", error_message: expect.stringContaining(`HTTP ${status} at http://127.0.0.1:`), attempt: 1, configuration: true }]);
      expect(messages.at(-1)?.payload).toMatchObject({ type: "abort", reason: expect.stringMatching(/^configuration: /) });
      await session.dispose();
      await h.cleanup();
      h = undefined;
    }
  });

  it("honours Retry-After on a 429 when it is longer than the back-off", async () => {
    h = await startHarness({ protocol, script: [{ fault: { kind: "http", status: 429, retryAfter: "7" } }, { text: "ok" }] });
    const session = await h.agent.createSession({ workspaceDir: h.workspace });
    await collect(session.run("hello", { approve: allow }));
    expect(h.sleeps).toEqual([7000]);
    await session.dispose();
  });
});
