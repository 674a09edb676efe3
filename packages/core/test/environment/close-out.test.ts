// The central close-out and the tool catalog, through a real Environment: framing, bad
// arguments, unknown tools, `[no output]`, the verdict priority, and what listTools shows.
import { afterEach, describe, expect, it } from "vitest";
import { composeOutput, decideStopReason, truncationNote } from "../../src/environment/close-out.js";
import { call, sandbox, type Sandbox } from "./helpers.js";

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

describe("close-out rules", () => {
  it("answers an unknown tool with a failed output naming it", async () => {
    box = sandbox();
    const r = await call(box.env, "launch_rockets", { now: true });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("Unknown tool: launch_rockets");
    expect(r.output).toContain("read_file");
  });

  it("answers bad JSON with a failed output", async () => {
    box = sandbox();
    const r = await call(box.env, "read_file", undefined, { raw: '{"file_path": "a.txt"' });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toMatch(/Invalid arguments for read_file: not valid JSON/);
  });

  it("answers a non-object with a failed output", async () => {
    box = sandbox();
    const r = await call(box.env, "write_file", undefined, { raw: '["a.txt"]' });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("expected a JSON object, got an array");
  });

  it("names every missing or mistyped field", async () => {
    box = sandbox();
    const r = await call(box.env, "edit_file", { file_path: "a.txt", old_string: 3 });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("`old_string`: Invalid input: expected string");
    expect(r.output).toContain("`new_string`: missing required parameter");
  });

  it("requires `description` on the command tools, and names it", async () => {
    box = sandbox();
    const r = await call(box.env, "exec_command", { cmd: "echo hi" });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("`description`: missing required parameter");
  });

  it("refuses calls after dispose without throwing", async () => {
    box = sandbox();
    await box.env.dispose();
    const r = await call(box.env, "read_file", { file_path: "a.txt" });
    expect(r.stopReason).toBe("failed");
    expect(r.output).toContain("disposed");
  });
});

describe("close-out pure parts", () => {
  it("orders the verdict interrupt > timeout > throw > self-report > completed", () => {
    expect(decideStopReason({ interrupted: true, timedOut: true, threw: true, selfReported: "failed" })).toBe("aborted");
    expect(decideStopReason({ interrupted: false, timedOut: true, threw: true, selfReported: "failed" })).toBe("timeout");
    expect(decideStopReason({ interrupted: false, timedOut: false, threw: true, selfReported: "completed" })).toBe("failed");
    expect(decideStopReason({ interrupted: false, timedOut: false, threw: false, selfReported: "failed" })).toBe("failed");
    expect(decideStopReason({ interrupted: false, timedOut: false, threw: false })).toBe("completed");
  });

  it("puts notes on their own lines after the head and never leaves the output empty", () => {
    expect(composeOutput("", [])).toBe("[no output]");
    expect(composeOutput("abc", ["[n1]", "", "[n2]"])).toBe("abc\n[n1]\n[n2]");
    expect(composeOutput("abc\n", ["[n]"])).toBe("abc\n[n]");
    expect(composeOutput("", ["[n]"])).toBe("[n]");
  });

  it("says where the archive is, or why there is none", () => {
    expect(truncationNote(10, 99, { ok: true, path: "/s/x.txt", complete: true })).toBe(
      "[output truncated: showing the first 10 of 99 characters; the full output is saved at /s/x.txt]",
    );
    expect(truncationNote(10, 99, { ok: false, error: "EACCES" })).toContain("could not be saved (EACCES)");
  });
});

describe("tool catalog", () => {
  const names = (s: Sandbox) => s.env.listTools().map((t) => t.name);

  it("lists the builtins in order, describe_image without vision, read_image with it", () => {
    box = sandbox();
    expect(names(box)).toEqual(["read_file", "edit_file", "write_file", "exec_command", "input_command", "kill_command", "describe_image"]);
    const vision = sandbox({ vision: true });
    try {
      expect(names(vision)).toContain("read_image");
      expect(names(vision)).not.toContain("describe_image");
    } finally {
      void vision.cleanup();
    }
  });

  it("gives JSON-Schema parameters with required fields and defaults", () => {
    box = sandbox();
    const read = box.env.listTools().find((t) => t.name === "read_file");
    expect(read?.parameters).toMatchObject({
      type: "object",
      required: ["file_path"],
      properties: { offset: { type: "integer", default: 1 }, limit: { type: "integer", default: 2000 } },
    });
    expect(read?.parameters).not.toHaveProperty("$schema");
    const exec = box.env.listTools().find((t) => t.name === "exec_command");
    expect(exec?.parameters).toMatchObject({ required: ["cmd", "description"], properties: { description: { type: "string" } } });
  });

  it("drops `description` everywhere with callDescription: false, and stops requiring it", async () => {
    box = sandbox({ callDescription: false });
    for (const tool of box.env.listTools()) {
      expect(JSON.stringify(tool.parameters)).not.toContain('"description":{"type"');
      expect(tool.parameters?.required).not.toContain("description");
    }
    const r = await call(box.env, "exec_command", { cmd: "echo ok" });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toBe("ok\n[exit code: 0]");
  });

  it("replaces the builtin schemas wholesale with tools.builtin, dropping unknown names", async () => {
    const override = [
      { name: "exec_command", description: "Run it.", parameters: { type: "object", properties: { cmd: { type: "string" }, description: { type: "string" } }, required: ["cmd", "description"] } },
      { name: "teleport", description: "Not ours." },
      { name: "read_file", description: "Read it." },
    ];
    box = sandbox({ builtinOverride: override, callDescription: false });
    const tools = box.env.listTools();
    expect(tools.map((t) => t.name)).toEqual(["exec_command", "read_file"]);
    expect(tools[0]?.description).toBe("Run it.");
    expect(tools[0]?.parameters).toEqual({ type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] });
    const notListed = await call(box.env, "write_file", { file_path: "x", content: "y" });
    expect(notListed.stopReason).toBe("failed");
    expect(notListed.output).toContain("Unknown tool: write_file");
  });

  it("reports permissions: r for readers, rw for the rest and for unknown names", () => {
    box = sandbox();
    expect(box.env.toolPermission("read_file")).toBe("r");
    expect(box.env.toolPermission("describe_image")).toBe("r");
    for (const name of ["edit_file", "write_file", "exec_command", "input_command", "kill_command", "nope"]) {
      expect(box.env.toolPermission(name)).toBe("rw");
    }
  });
});
