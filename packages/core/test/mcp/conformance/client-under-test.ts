// The client the official MCP conformance suite starts (`conformance client --command …`): our
// MCP client (McpHub, the one sessions use) connected to the scenario's server URL (the last
// argument) over Streamable HTTP, listing the tools and calling each with arguments made from
// its input schema, then closing. The scenario name arrives in MCP_CONFORMANCE_SCENARIO; the
// suite judges what it saw on its side. Exits 1 when the connection fails.
import { McpHub } from "../../../src/environment/mcp/hub.js";
import { parseMcpServers } from "../../../src/environment/mcp/config.js";

const url = process.argv.at(-1);
if (url === undefined || !/^https?:\/\//.test(url)) {
  process.stderr.write("usage: client-under-test.ts <server url>\n");
  process.exit(2);
}

/** A value for each property of a tool's input schema (numbers 1, 2, …; text; true). */
function argumentsFor(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, { type?: string; default?: unknown }>;
  let n = 0;
  return Object.fromEntries(
    Object.entries(properties).map(([key, p]) => {
      if (p.default !== undefined) return [key, p.default];
      if (p.type === "number" || p.type === "integer") return [key, ++n];
      if (p.type === "boolean") return [key, true];
      return [key, "conformance"];
    }),
  );
}

const hub = new McpHub(parseMcpServers([{ name: "scenario", config: { url } }], "conformance"), { clientName: "penguin-harness" });
let failed = false;
for await (const m of hub.connect()) {
  if (m.type === "event_msg" && m.payload.type === "mcp_connect_end") {
    const p = m.payload as { servers?: { name: string; status?: string; error?: string }[] };
    process.stdout.write(`${JSON.stringify(p)}\n`);
    if (JSON.stringify(p).includes('"error"')) failed = true;
  }
}
for (const tool of hub.tools()) {
  const result = await hub.call(tool.definition.name, JSON.stringify(argumentsFor(tool.definition.parameters)));
  process.stdout.write(`${tool.definition.name}: ${JSON.stringify(result).slice(0, 300)}\n`);
}
await hub.close();
process.exit(failed ? 1 : 0);
