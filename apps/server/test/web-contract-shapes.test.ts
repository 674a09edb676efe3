// The contract's answers the web app decodes, compiled to plain shapes (src/http/web-shapes.ts,
// src/contract/web-shapes.generated.ts). Given real answers of a server driven over 127.0.0.1
// (a session list, a session's detail, a created session, a usage report), when each is
// checked by the compiled shape and by effect/Schema, then both accept it; and when a field is
// made wrong, both refuse it, the compiled one naming that field. The generated file must be
// what the schemas compile to today (a changed schema without a regenerated file fails here).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { shapeIssue } from "@penguin/omnimessage/browser";
import { Either, Schema } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import * as WEB_SHAPES from "../src/contract/web-shapes.generated.js";
import { renderWebShapesModule, WEB_DECODED } from "../src/http/web-shapes.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const effectAccepts = (name: keyof typeof WEB_DECODED, value: unknown) => Either.isRight(Schema.decodeUnknownEither(WEB_DECODED[name] as Schema.Schema<unknown, unknown>)(value));

describe("the web's compiled contract shapes", { timeout: 120_000 }, () => {
  it("are what the contract's schemas compile to today", () => {
    const file = fileURLToPath(new URL("../src/contract/web-shapes.generated.ts", import.meta.url));
    expect(readFileSync(file, "utf8")).toBe(renderWebShapesModule());
  });

  it("accept the server's real answers as effect/Schema does, and refuse a wrong field naming it", async () => {
    h = await startHarness({ script: [{ text: "counted" }] });
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("count the tides"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    const answers: [keyof typeof WEB_DECODED, unknown][] = [
      ["SessionList", (await c.get("/api/projects/default_project/agents/default_agent/sessions")).body],
      ["SessionDetail", (await c.get(`/api/sessions/${sid}`)).body],
      ["SessionView", (await c.post("/api/projects/default_project/agents/default_agent/sessions", { workspace: h.workspace })).body],
      ["UsageReport", (await c.get("/api/projects/default_project/usage?groupBy=session&granularity=day")).body],
      ["ProjectList", (await c.get("/api/projects")).body],
      ["AgentList", (await c.get("/api/projects/default_project/agents")).body],
    ];
    for (const [name, body] of answers) {
      expect(effectAccepts(name, body), `${name} by effect`).toBe(true);
      expect(shapeIssue(WEB_SHAPES[`${name}Shape`], body), `${name} compiled`).toBeUndefined();
    }
    const list = answers[0]![1] as { sessions: Record<string, unknown>[] };
    expect(list.sessions.length).toBeGreaterThan(0);
    const wrong = { sessions: [{ ...list.sessions[0], approvalMode: "sometimes" }] };
    expect(effectAccepts("SessionList", wrong)).toBe(false);
    const issue = shapeIssue(WEB_SHAPES.SessionListShape, wrong);
    expect(issue?.path).toEqual(["sessions", 0, "approvalMode"]);
    expect(issue?.message).toMatch(/actual "sometimes"/);
    const usage = answers[3]![1] as { totals: Record<string, unknown> };
    const badTotals = { ...usage, totals: { ...usage.totals, total: "many" } };
    expect(effectAccepts("UsageReport", badTotals)).toBe(false);
    expect(shapeIssue(WEB_SHAPES.UsageReportShape, badTotals)?.path).toEqual(["totals", "total"]);
  });
});
