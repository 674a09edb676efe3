// The admin's "MCP commands" form against a scripted server: it shows the stored list and
// switch, saves the edited list (blank lines dropped) and the switch, sends the other
// settings back untouched (the server replaces the whole value), and shows the server's
// refusal of a bad entry.
import { describe, expect, it } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { setFetch } from "../src/api/http";
import { McpCommandsAdmin } from "../src/features/settings/McpCommandsAdmin";

describe("McpCommandsAdmin", () => {
  it("loads, saves the list and the switch with the other settings kept, and shows a refusal", async () => {
    let stored: Record<string, unknown> = { proxyForApp: true, workspaceRoots: ["/srv/ws"], mcp: { stdioCommands: ["npx"], allowUnsandboxedStdio: false } };
    const puts: unknown[] = [];
    setFetch(async (input, init) => {
      expect(String(input)).toBe("/api/admin/settings");
      if (init?.method === "PUT") {
        const body = JSON.parse(String(init.body)) as Record<string, unknown>;
        puts.push(body);
        const mcp = body.mcp as { stdioCommands: string[] };
        if (mcp.stdioCommands.some((c) => c.startsWith("./"))) {
          return new Response(JSON.stringify({ error: { code: "invalid_request", message: "mcp.stdioCommands.1: must be a bare command name (npx) or an absolute path" } }), { status: 400 });
        }
        stored = body;
      }
      return new Response(JSON.stringify(stored));
    });
    render(() => <McpCommandsAdmin />);
    const list = (await screen.findByLabelText("Commands stdio MCP servers may run")) as HTMLTextAreaElement;
    await screen.findByDisplayValue("npx");
    const unsandboxed = screen.getByLabelText(/Run stdio MCP servers without a sandbox/) as HTMLInputElement;
    expect(unsandboxed.checked).toBe(false);

    await userEvent.clear(list);
    await userEvent.type(list, "npx{enter}{enter}/usr/local/bin/my-mcp");
    await userEvent.click(unsandboxed);
    await userEvent.click(screen.getByRole("button", { name: "Save MCP commands" }));
    expect(await screen.findByText("MCP commands saved.")).toBeInTheDocument();
    expect(puts.at(-1)).toEqual({ proxyForApp: true, workspaceRoots: ["/srv/ws"], mcp: { stdioCommands: ["npx", "/usr/local/bin/my-mcp"], allowUnsandboxedStdio: true } });

    await userEvent.type(list, "{enter}./relative");
    await userEvent.click(screen.getByRole("button", { name: "Save MCP commands" }));
    expect(await screen.findByText(/must be a bare command name/)).toBeInTheDocument();
  });
});
