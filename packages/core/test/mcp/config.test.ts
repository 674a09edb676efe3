// parseMcpServers: what valid `tools.mcpServers` entries become, and that every bad entry
// is refused with a ConfigError naming the file, the server and the field.
import { describe, expect, it } from "vitest";
import { parseMcpServers } from "../../src/environment/mcp/index.js";
import { ConfigError } from "../../src/state/config-error.js";

const FILE = "/home/u/.penguin/data/p/agents/a/system_config.yaml";

function errorOf(raw: unknown): ConfigError {
  try {
    parseMcpServers(raw, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("parseMcpServers accepted the input");
}

describe("parseMcpServers: valid entries", () => {
  it("reads all three transports and their options", () => {
    const parsed = parseMcpServers(
      [
        {
          name: "fs",
          config: { command: "npx", args: ["-y", "server-fs", "."], env: { TOKEN: "t" }, cwd: "sub", permission: "r" },
        },
        { name: "linear", config: { transport: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } } },
        { name: "legacy", config: { transport: "sse", url: "http://127.0.0.1:9/sse", connectTimeoutMs: 2500, permission: "rw" } },
      ],
      FILE,
    );
    expect(parsed).toEqual([
      {
        name: "fs",
        config: { transport: "stdio", command: "npx", args: ["-y", "server-fs", "."], env: { TOKEN: "t" }, cwd: "sub", permission: "r" },
      },
      { name: "linear", config: { transport: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } } },
      { name: "legacy", config: { transport: "sse", url: "http://127.0.0.1:9/sse", connectTimeoutMs: 2500, permission: "rw" } },
    ]);
  });

  it("treats a url without a transport as Streamable HTTP, never as SSE", () => {
    const [entry] = parseMcpServers([{ name: "remote", config: { url: "http://127.0.0.1:1/sse" } }], FILE);
    expect(entry?.config.transport).toBe("http");
  });

  it("reads a missing or null list as no servers", () => {
    expect(parseMcpServers(undefined, FILE)).toEqual([]);
    expect(parseMcpServers(null, FILE)).toEqual([]);
    expect(parseMcpServers([], FILE)).toEqual([]);
  });
});

describe("parseMcpServers: errors name the file, the server and the field", () => {
  const cases: { what: string; raw: unknown; field: string; says: RegExp }[] = [
    { what: "not a list", raw: { fs: {} }, field: "tools.mcpServers", says: /list/ },
    { what: "entry not a map", raw: ["fs"], field: "tools.mcpServers[0]", says: /map/ },
    { what: "missing name", raw: [{ config: { command: "x" } }], field: "tools.mcpServers[0].name", says: /non-empty string/ },
    {
      what: "duplicate name",
      raw: [
        { name: "fs", config: { command: "x" } },
        { name: "fs", config: { command: "y" } },
      ],
      field: "tools.mcpServers[1].name",
      says: /"fs".*earlier entry/,
    },
    { what: "missing config", raw: [{ name: "fs" }], field: "tools.mcpServers[0].config", says: /"fs".*must be a map/ },
    { what: "neither command nor url", raw: [{ name: "fs", config: {} }], field: "tools.mcpServers[0].config", says: /"command".*"url"/ },
    {
      what: "both command and url",
      raw: [{ name: "fs", config: { command: "x", url: "http://a/" } }],
      field: "tools.mcpServers[0].config",
      says: /both/,
    },
    {
      what: "unknown transport",
      raw: [{ name: "ws", config: { transport: "websocket", url: "ws://a/" } }],
      field: "tools.mcpServers[0].config.transport",
      says: /"ws".*"websocket"/,
    },
    {
      what: "empty command",
      raw: [{ name: "fs", config: { transport: "stdio", command: " " } }],
      field: "tools.mcpServers[0].config.command",
      says: /non-empty/,
    },
    {
      what: "a number in args",
      raw: [{ name: "fs", config: { command: "x", args: ["--port", 8080] } }],
      field: "tools.mcpServers[0].config.args[1]",
      says: /"fs".*string/,
    },
    {
      what: "a number in env",
      raw: [{ name: "fs", config: { command: "x", env: { PORT: 8080 } } }],
      field: "tools.mcpServers[0].config.env.PORT",
      says: /string/,
    },
    {
      what: "a typo'd key",
      raw: [{ name: "fs", config: { command: "x", comand: "y" } }],
      field: "tools.mcpServers[0].config.comand",
      says: /unknown key "comand"/,
    },
    {
      what: "stdio keys on an http server",
      raw: [{ name: "web", config: { transport: "http", url: "http://a/", args: [] } }],
      field: "tools.mcpServers[0].config.args",
      says: /unknown key/,
    },
    {
      what: "a bad url",
      raw: [{ name: "web", config: { transport: "http", url: "not a url" } }],
      field: "tools.mcpServers[0].config.url",
      says: /"web".*valid URL/,
    },
    {
      what: "a non-http url",
      raw: [{ name: "web", config: { transport: "sse", url: "ftp://a/" } }],
      field: "tools.mcpServers[0].config.url",
      says: /http/,
    },
    {
      what: "a zero timeout",
      raw: [{ name: "fs", config: { command: "x", connectTimeoutMs: 0 } }],
      field: "tools.mcpServers[0].config.connectTimeoutMs",
      says: /positive whole number/,
    },
    {
      what: "a bad permission",
      raw: [{ name: "fs", config: { command: "x", permission: "read" } }],
      field: "tools.mcpServers[0].config.permission",
      says: /"auto", "r" or "rw"/,
    },
    {
      what: "headers not a map",
      raw: [{ name: "web", config: { url: "http://a/", headers: ["Authorization: x"] } }],
      field: "tools.mcpServers[0].config.headers",
      says: /map/,
    },
  ];

  for (const c of cases) {
    it(c.what, () => {
      const error = errorOf(c.raw);
      expect(error.detail.file).toBe(FILE);
      expect(error.detail.field).toBe(c.field);
      expect(error.message).toContain(FILE);
      expect(error.message).toContain(c.field);
      expect(error.message).toMatch(c.says);
    });
  }
});
