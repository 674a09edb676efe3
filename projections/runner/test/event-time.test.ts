// parseEventTime must answer exactly what Date.parse answers, for the writer's own form (read
// digit by digit) and for every other form (handed to Date.parse).
import { describe, expect, it } from "vitest";
import { parseEventTime } from "../src/index.js";

describe("parseEventTime", () => {
  it("given the writer's timestamps across years, months and milliseconds, then it answers what Date.parse does", () => {
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      const text = new Date(Date.UTC(1970, 0, 1) + (x % 2_000_000) * 1_000_003 + (i % 1000)).toISOString();
      expect(parseEventTime(text), text).toBe(Date.parse(text));
    }
  });

  it("given other forms, edge days and garbage, then it answers what Date.parse does (NaN included)", () => {
    const texts = [
      "2026-02-28T23:59:59.999Z",
      "2026-02-29T00:00:00.000Z",
      "2024-02-29T12:00:00.000Z",
      "2026-04-31T00:00:00.000Z",
      "2026-12-31T23:59:59.999Z",
      "2026-13-01T00:00:00.000Z",
      "2026-00-10T00:00:00.000Z",
      "2026-01-10T24:00:00.000Z",
      "2026-01-10T23:60:00.000Z",
      "2026-01-10T23:00:60.000Z",
      "2026-01-10T10:00:00Z",
      "2026-01-10T10:00:00.000+02:00",
      "2026-01-10 10:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "0099-01-01T00:00:00.000Z",
      "2026-01-1xT10:00:00.000Z",
      "2026-01-10T10:00:00.00aZ",
      "not a time at all, 24 ch",
      "",
    ];
    for (const text of texts) expect(parseEventTime(text), text).toBe(Date.parse(text));
  });
});
