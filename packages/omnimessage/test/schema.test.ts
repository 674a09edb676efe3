// The protocol schemas: every builder's output decodes to itself, unknown extra fields and
// provider fidelity pass through, and a bad value is rejected with the path of the bad field.
import { describe, expect, it } from "vitest";
import {
  approvalRequested,
  assistantText,
  decodeEnvelope,
  forkedFrom,
  goalStarted,
  requestEnd,
  sessionArchived,
  sessionTitle,
  settingsChanged,
  steeringQueued,
  steeringRecalled,
  toolCall,
  type OmniMessage,
} from "../src/index.js";

const at = "2026-12-01T09:00:00.000Z";

describe("decodeEnvelope", () => {
  it("given each new session-fact event, when decoded, then it comes back equal", () => {
    const events: OmniMessage[] = [
      approvalRequested({ tool_call_id: "call_1", name: "exec_command" }, { at }),
      steeringQueued("steer-1", "also do b", { at }),
      steeringRecalled("steer-1", { at }),
      settingsChanged({ approval_mode: "ask", thinking_level: "high" }, { at }),
      settingsChanged({ thinking_level: "low" }, { at }),
      settingsChanged({ sandbox_network: true }, { at }),
      settingsChanged({ sandbox_network: false }, { at }),
      sessionTitle("Fix the build", { at }),
      sessionArchived(true, { at }),
      goalStarted("ship it", 500_000, { at }),
      forkedFrom("session-2026-12-01-09-00-00-0123abcd", "001:000042", { at }),
    ];
    for (const e of events) {
      const decoded = decodeEnvelope(JSON.parse(JSON.stringify(e)));
      expect(decoded).toEqual({ ok: true, message: e });
    }
  });

  it("given a settings change with sandbox_network, when decoded, then the flag is a boolean and a string is rejected", () => {
    const allowed = settingsChanged({ sandbox_network: true }, { at });
    expect(allowed.payload).toEqual({ type: "settings_changed", sandbox_network: true });
    const bad = decodeEnvelope({ ...allowed, payload: { type: "settings_changed", sandbox_network: "yes" } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain('["payload"]["sandbox_network"]');
    expect(() => settingsChanged({})).toThrow("sandbox_network");
  });

  it("given a line with unknown extra fields and fidelity, when decoded, then both are kept byte-exact", () => {
    const line = assistantText("hi", { at, fidelity: { signature: "abc", nested: { keep: [1, 2] } } });
    const withExtra = { ...line, written_by: "a newer writer", payload: { ...line.payload, future_field: 7 } };
    const decoded = decodeEnvelope(JSON.parse(JSON.stringify(withExtra)));
    expect(decoded.ok).toBe(true);
    if (decoded.ok) expect(JSON.stringify(decoded.message)).toBe(JSON.stringify(withExtra));
  });

  it("given a wrong field deep in a payload, when decoded, then the error names its path", () => {
    const bad = { ...requestEnd("completed", undefined, { at }), payload: { type: "request_end", status: "done" } };
    const decoded = decodeEnvelope(bad);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) {
      expect(decoded.error).toContain('["payload"]["status"]');
      expect(decoded.error).toContain('"done"');
    }
    const call = toolCall({ name: "n", arguments: "{}", tool_call_id: "c" }, { at });
    const missing = decodeEnvelope({ ...call, payload: { type: "tool_call", role: "assistant", name: "n", arguments: "{}" } });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toContain('["payload"]["tool_call_id"]');
  });

  it("given an unknown payload tag or family, when decoded, then it is rejected with a reason", () => {
    for (const bad of [
      { timestamp: at, type: "event_msg", payload: { type: "not_an_event" } },
      { timestamp: at, type: "nope", payload: {} },
      { timestamp: 5, type: "event_msg", payload: { type: "request_begin" } },
    ]) {
      const decoded = decodeEnvelope(bad);
      expect(decoded.ok).toBe(false);
      if (!decoded.ok) expect(decoded.error.length).toBeGreaterThan(0);
    }
  });
});
