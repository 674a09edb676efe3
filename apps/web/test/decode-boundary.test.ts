// The browser's decode boundary: SSE frames go through @penguin/omnimessage's browser entry
// (vite.config.ts maps the package name to it), so a good envelope reaches the app as the
// very object parsed, and a bad one is skipped with a console warning that names the field.
import { afterEach, describe, expect, it, vi } from "vitest";
import * as omnimessage from "@penguin/omnimessage";
import { requestEnd, userText } from "@penguin/omnimessage";
import { decodeFrame } from "../src/api/stream-events";

const at = "2026-12-01T09:00:00.000Z";

afterEach(() => vi.restoreAllMocks());

describe("decodeFrame", () => {
  it("given a frame holding an envelope, when decoded, then the app gets that envelope", () => {
    const message = userText("hello", { at });
    const decoded = decodeFrame({ event: "message", id: "7", data: JSON.stringify(message) });
    expect(decoded).toEqual({ kind: "message", id: "7", message: JSON.parse(JSON.stringify(message)) });
  });

  it("given a frame whose envelope has a bad field, when decoded, then it is skipped and the warning names the field", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const bad = { ...requestEnd("completed", undefined, { at }), payload: { type: "request_end", status: "done" } };
    expect(decodeFrame({ event: "message", id: "8", data: JSON.stringify(bad) })).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/id 8\b.*\["payload"\]\["status"\]: Expected "completed" \| .*actual "done"/);
  });

  it("given the app's @penguin/omnimessage, when imported, then it is the browser entry (no effect schemas in the bundle)", () => {
    expect(typeof omnimessage.decodeEnvelope).toBe("function");
    expect("OmniMessageSchema" in omnimessage).toBe(false);
  });
});
