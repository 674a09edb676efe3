// The pure rules: exposed tool names (sanitised, at most 64 characters, unique, stable),
// permissions under auto / r / rw, argument parsing and result mapping.
import { describe, expect, it } from "vitest";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  exposedToolName,
  mapCallResult,
  parseToolArguments,
  resolvePermission,
  sanitizeNamePart,
  stdioEnvironment,
} from "../../src/environment/mcp/index.js";

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

function tool(name: string, annotations?: Tool["annotations"]): Tool {
  return { name, inputSchema: { type: "object" }, ...(annotations ? { annotations } : {}) };
}

describe("exposed tool names", () => {
  it("are mcp__<server>__<tool> when already valid", () => {
    expect(exposedToolName("github", "create_issue", new Set())).toBe("mcp__github__create_issue");
  });

  it("replace characters providers refuse", () => {
    expect(sanitizeNamePart("search.files/v2 (beta)")).toBe("search_files_v2__beta_");
    expect(exposedToolName("my.server", "über-tool", new Set())).toBe("mcp__my_server___ber-tool");
  });

  it("cut long names to 64 characters with a stable hash, different per tool", () => {
    const server = "a-server-with-quite-a-long-name";
    const one = exposedToolName(server, "x".repeat(80), new Set());
    const two = exposedToolName(server, `${"x".repeat(79)}y`, new Set());
    expect(one).toMatch(VALID);
    expect(one).toHaveLength(64);
    expect(one).not.toBe(two);
    expect(exposedToolName(server, "x".repeat(80), new Set(["unrelated"]))).toBe(one);
  });

  it("stay unique when two tools sanitise to the same name", () => {
    const taken = new Set<string>();
    const first = exposedToolName("s", "a.b", taken);
    taken.add(first);
    const second = exposedToolName("s", "a_b", taken);
    expect(first).toBe("mcp__s__a_b");
    expect(second).not.toBe(first);
    expect(second).toMatch(VALID);
  });
});

describe("permissions", () => {
  it("auto trusts only an explicit readOnlyHint: true", () => {
    expect(resolvePermission(undefined, tool("t", { readOnlyHint: true }))).toBe("r");
    expect(resolvePermission("auto", tool("t", { readOnlyHint: true }))).toBe("r");
    expect(resolvePermission("auto", tool("t", { readOnlyHint: false }))).toBe("rw");
    expect(resolvePermission("auto", tool("t"))).toBe("rw");
  });

  it("r and rw override the annotation for every tool", () => {
    expect(resolvePermission("r", tool("t"))).toBe("r");
    expect(resolvePermission("rw", tool("t", { readOnlyHint: true }))).toBe("rw");
  });
});

describe("tool arguments", () => {
  it("accept an object, and empty text as no arguments", () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseToolArguments("  ")).toEqual({ ok: true, value: {} });
  });

  it("refuse broken JSON and non-objects with a reason", () => {
    expect(parseToolArguments("{nope")).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(parseToolArguments("[1,2]")).toEqual({ ok: false, error: "the arguments must be a JSON object" });
    expect(parseToolArguments("null")).toEqual({ ok: false, error: "the arguments must be a JSON object" });
  });
});

describe("result mapping", () => {
  it("joins text with newlines and turns images into data URLs", () => {
    expect(
      mapCallResult({
        content: [
          { type: "text", text: "a" },
          { type: "image", data: "QUJD", mimeType: "image/png" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ output: "a\nb", images: ["data:image/png;base64,QUJD"], isError: false });
  });

  it("serialises structuredContent when there is no content", () => {
    const mapped = mapCallResult({ content: [], structuredContent: { ok: true, n: 2 } });
    expect(JSON.parse(mapped.output)).toEqual({ ok: true, n: 2 });
    expect(mapped.images).toBeUndefined();
  });

  it("marks isError and never leaves a failed output empty", () => {
    expect(mapCallResult({ content: [{ type: "text", text: "boom" }], isError: true })).toEqual({ output: "boom", isError: true });
    expect(mapCallResult({ content: [], isError: true }).output).not.toBe("");
  });
});

describe("stdio environment", () => {
  it("keeps only the minimal inherited variables, then adds the entry's env", () => {
    const env = stdioEnvironment(
      { PATH: "/bin", HOME: "/home/u", OPENAI_API_KEY: "secret", SHELL: "() { evil; }" },
      { TOKEN: "mine" },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/home/u", TOKEN: "mine" });
  });
});
