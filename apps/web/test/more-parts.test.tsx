// More interactive parts on their own: the workspace folder picker (up, into, use), the
// MCP server form (test a connection, add it to the config text), the text-file editor
// (unsaved marker, save error, discard), the sign-in page (the server's refusal shown), the
// app shell (project switcher, sign out), the theme choice and a code block's Copy button.
import { createSignal } from "solid-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { setFetch } from "../src/api/http";
import { CodeBlock } from "../src/components/CodeBlock";
import { AppShell } from "../src/components/layout/AppShell";
import { McpPanel } from "../src/features/agents/McpPanel";
import { TextFileEditor } from "../src/features/agents/TextFileEditor";
import LoginPage from "../src/features/auth/LoginPage";
import { WorkspacePicker } from "../src/features/chat/WorkspacePicker";
import SettingsPage from "../src/features/settings/SettingsPage";
import { auth, signIn } from "../src/state/auth-store";
import { loadProjects, project } from "../src/state/project-store";
import { TestRouter } from "./helpers/test-router";

interface Call {
  method: string;
  path: string;
  body: unknown;
}

function serve(answer: (call: Call) => { status?: number; body: unknown } | undefined): Call[] {
  const calls: Call[] = [];
  setFetch(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const call = { method: init?.method ?? "GET", path: url.pathname + url.search, body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) };
    calls.push(call);
    const a = answer(call);
    if (a === undefined) return new Response(JSON.stringify({ error: { code: "not_found", message: `${call.method} ${call.path} not found` } }), { status: 404 });
    return new Response(JSON.stringify(a.body), { status: a.status ?? 200 });
  });
  return calls;
}

afterEach(() => setFetch((i, init) => fetch(i, init)));

describe("WorkspacePicker", () => {
  it("walks into a folder and up again, then uses the folder shown", async () => {
    serve((call) => {
      if (call.path === "/api/projects/p/dirs?path=%2Fhome%2Fme") return { body: { path: "/home/me", parent: "/home", dirs: ["site", "docs"] } };
      if (call.path === "/api/projects/p/dirs?path=%2Fhome%2Fme%2Fsite") return { body: { path: "/home/me/site", parent: "/home/me", dirs: [] } };
      return undefined;
    });
    const onPick = vi.fn();
    render(() => <WorkspacePicker projectId="p" start="/home/me" onPick={onPick} onClose={() => undefined} />);
    await userEvent.click(await screen.findByRole("button", { name: /site/ }));
    expect(await screen.findByText("No sub-folders")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: /Up/ }));
    await screen.findByRole("button", { name: /docs/ });
    await userEvent.click(screen.getByRole("button", { name: /site/ }));
    await screen.findByText("No sub-folders");
    await userEvent.click(screen.getByRole("button", { name: "Use this folder" }));
    expect(onPick).toHaveBeenCalledWith("/home/me/site");
  });
});

describe("McpPanel", () => {
  it("tests a stdio server through the server and adds it to the configuration text", async () => {
    const calls = serve((call) =>
      call.path === "/api/projects/p/agents/a/config/mcp-test" ? { body: { ok: true, transport: "stdio", durationMs: 42, tools: [{ name: "read", permission: "r", description: "Read a file\nmore" }] } } : undefined,
    );
    const [yaml, setYaml] = createSignal("tools:\n  mcpServers: []\n");
    render(() => <McpPanel projectId="p" agentId="a" yaml={yaml()} onYaml={setYaml} readOnly={false} />);
    expect(screen.getByText("None configured.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Test connection" })).toBeDisabled();
    await userEvent.type(screen.getByLabelText("Name"), "files");
    await userEvent.type(screen.getByLabelText("Command"), "npx");
    await userEvent.type(screen.getByLabelText("Arguments (space separated)"), "-y files-server");
    await userEvent.click(screen.getByRole("button", { name: "Test connection" }));
    expect(await screen.findByText(/Connected \(stdio, 42 ms\): 1 tool\./)).toBeInTheDocument();
    expect(calls[0]?.body).toEqual({ name: "files", config: { command: "npx", args: ["-y", "files-server"] } });
    await userEvent.click(screen.getByRole("button", { name: "Add to configuration" }));
    expect(yaml()).toContain('  mcpServers:\n    - name: files\n      config: { command: "npx", args: ["-y", "files-server"] }');
    expect(screen.getByText("files", { selector: "li" })).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveValue("");
  });
});

describe("TextFileEditor", () => {
  it("marks unsaved changes, shows the server's refusal, and discards back to the saved text", async () => {
    const [value, setValue] = createSignal("a: 1\n");
    const onSave = vi.fn(async () => {
      throw new Error("system_config.yaml line 1: unknown key b");
    });
    render(() => <TextFileEditor label="system_config.yaml" value={value()} saved={"a: 1\n"} onChange={setValue} onSave={onSave} readOnly={false} />);
    expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
    await userEvent.type(screen.getByLabelText("system_config.yaml"), "b: 2");
    expect(screen.getByLabelText("system_config.yaml (unsaved changes)")).toHaveValue("a: 1\nb: 2");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("unknown key b");
    await userEvent.click(screen.getByRole("button", { name: "Discard changes" }));
    expect(screen.getByLabelText("system_config.yaml")).toHaveValue("a: 1\n");
  });
});

describe("LoginPage", () => {
  it("keeps Sign in disabled until both fields are filled, and shows the server's refusal", async () => {
    serve((call) => (call.path === "/api/auth/login" ? { status: 401, body: { error: { code: "bad_credentials", message: "wrong user id or password" } } } : undefined));
    render(() => <LoginPage />);
    const button = screen.getByRole("button", { name: "Sign in" });
    expect(button).toBeDisabled();
    await userEvent.type(screen.getByLabelText("User id"), "admin");
    await userEvent.type(screen.getByLabelText("Password"), "nope");
    expect(button).toBeEnabled();
    await userEvent.click(button);
    expect(await screen.findByRole("alert")).toHaveTextContent("wrong user id or password");
    expect(screen.getByRole("button", { name: "Sign in" })).toBeEnabled();
  });
});

describe("AppShell and Settings", () => {
  it("switches project, signs out, and applies the chosen theme", async () => {
    const calls = serve((call) => {
      if (call.path === "/api/auth/login") return { body: { user: { userId: "ann", isAdmin: false, passwordIsInitial: false } } };
      if (call.path === "/api/projects") return { body: { projects: [{ projectId: "ann-default_project", ownerUserId: "ann", role: "owner" }, { projectId: "team", name: "Team", ownerUserId: "bob", role: "member" }] } };
      if (call.path.endsWith("/agents")) return { body: { agents: [{ agentId: "default_agent" }] } };
      if (call.path.endsWith("/models")) return { body: { models: [], defaultModel: null, visionModel: null } };
      if (call.path === "/api/auth/logout") return { body: {} };
      return undefined;
    });
    await signIn("ann", "pw");
    await loadProjects("ann");
    render(() => (
      <TestRouter>
        <AppShell>
          <SettingsPage />
        </AppShell>
      </TestRouter>
    ));
    expect(project.projectId).toBe("ann-default_project");
    await userEvent.selectOptions(screen.getByRole("combobox"), "team");
    await waitFor(() => expect(project.projectId).toBe("team"));
    expect(calls.some((c) => c.path === "/api/projects/team/agents")).toBe(true);

    await userEvent.click(screen.getByLabelText("Dark"));
    expect(document.documentElement.classList.contains("dark")).toBe(true);
    await userEvent.click(screen.getByLabelText("Light"));
    expect(document.documentElement.classList.contains("dark")).toBe(false);

    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    await waitFor(() => expect(auth.status).toBe("signed-out"));
    expect(calls.some((c) => c.method === "POST" && c.path === "/api/auth/logout")).toBe(true);
  });
});

describe("CodeBlock", () => {
  it("copies the code and says so", async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(() => <CodeBlock code={"echo hi"} lang="sh" />);
    expect(screen.getByText("sh")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Copy code" }));
    expect(writeText).toHaveBeenCalledWith("echo hi");
    expect(await screen.findByText("Copied")).toBeInTheDocument();
  });
});
