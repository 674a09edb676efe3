// Parts that read the app's Solid stores or hold rows of their own, against a scripted
// server (the transport swapped, every call recorded): the sessions sidebar (grouping, the
// search box, the empty state, an optimistic archive rolled back on refusal), the vault editor (typing keeps its row, stored
// values are kept unless retyped) and the users admin (loading, then the list).
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { setFetch } from "../src/api/http";
import type { SessionSummary } from "../src/api/types";
import { VaultPanel } from "../src/features/agents/VaultPanel";
import { SessionSidebar } from "../src/features/sessions/SessionSidebar";
import { UsersAdmin } from "../src/features/settings/UsersAdmin";
import { loadProjects } from "../src/state/project-store";
import { applyUserEvent, loadSessions, sessionList } from "../src/state/session-list-store";
import { TestRouter } from "./helpers/test-router";

interface Call {
  method: string;
  path: string;
  body: unknown;
}

/** A fake server: `answer` gets each call; undefined means 404. */
function serve(answer: (call: Call) => unknown): Call[] {
  const calls: Call[] = [];
  setFetch(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const call = { method: init?.method ?? "GET", path: url.pathname + url.search, body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) };
    calls.push(call);
    const body = answer(call);
    if (body === undefined) return new Response(JSON.stringify({ error: { code: "not_found", message: `${call.method} ${call.path} not found` } }), { status: 404 });
    return new Response(JSON.stringify(body), { status: 200 });
  });
  return calls;
}

afterEach(() => setFetch((i, init) => fetch(i, init)));

const session = (id: string, extra: Partial<SessionSummary>): SessionSummary => ({
  id,
  projectId: "p",
  agentId: "a",
  title: id,
  provider: "x",
  modelId: "y",
  workspace: "/home/me/site",
  approvalMode: "allow-all",
  thinkingLevel: null,
  archived: false,
  source: null,
  forkedFrom: null,
  replayOf: null,
  state: "idle",
  createdAt: 1,
  lastActiveAt: 1,
  ...extra,
});

describe("SessionSidebar", () => {
  it("groups by workspace, filters by the search box, says when nothing matches, and archives", async () => {
    const sessions = [session("Fix the login page", { lastActiveAt: 3 }), session("Write the release notes", { workspace: "/home/me/docs", lastActiveAt: 2 })];
    let patches = 0;
    const calls = serve((call) => {
      if (call.path === "/api/projects") return { projects: [{ projectId: "p", ownerUserId: "me", role: "owner" }] };
      if (call.path === "/api/projects/p/agents") return { agents: [{ agentId: "a" }] };
      if (call.path === "/api/projects/p/models") return { models: [], defaultModel: null, visionModel: null };
      if (call.path === "/api/projects/p/agents/a/sessions?category=active") return { sessions };
      if (call.method === "PATCH" && call.path.startsWith("/api/sessions/")) return patches++ === 0 ? undefined : {};
      return undefined;
    });
    await loadProjects("me");
    render(() => (
      <TestRouter>
        <SessionSidebar />
      </TestRouter>
    ));
    const nav = screen.getByRole("navigation", { name: "Sessions" });
    await within(nav).findByRole("link", { name: /Fix the login page/ });
    expect(within(nav).getByRole("region", { name: "site" })).toBeInTheDocument();
    expect(within(nav).getByRole("region", { name: "docs" })).toBeInTheDocument();

    await userEvent.type(within(nav).getByLabelText("Search sessions"), "release");
    expect(within(nav).queryByRole("link", { name: /Fix the login page/ })).not.toBeInTheDocument();
    expect(within(nav).getByRole("link", { name: /Write the release notes/ })).toBeInTheDocument();
    await userEvent.type(within(nav).getByLabelText("Search sessions"), " nothing-like-this");
    expect(within(nav).getByText("No session matches the search.")).toBeInTheDocument();
    await userEvent.clear(within(nav).getByLabelText("Search sessions"));

    // Archive is optimistic: the first attempt is refused (404 here), so the row comes back with the reason.
    await userEvent.click(within(nav).getByRole("button", { name: "Actions for Fix the login page" }));
    await userEvent.click(within(nav).getByRole("menuitem", { name: "Archive" }));
    expect(await within(nav).findByRole("alert")).toHaveTextContent("not found");
    expect(within(nav).getByRole("link", { name: /Fix the login page/ })).toBeInTheDocument();
    await userEvent.click(within(nav).getByRole("button", { name: "Actions for Fix the login page" }));
    await userEvent.click(within(nav).getByRole("menuitem", { name: "Archive" }));
    await waitFor(() => expect(within(nav).queryByRole("link", { name: /Fix the login page/ })).not.toBeInTheDocument());
    expect(within(nav).queryByRole("alert")).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method === "PATCH")).toEqual([
      { method: "PATCH", path: "/api/sessions/Fix%20the%20login%20page", body: { archived: true } },
      { method: "PATCH", path: "/api/sessions/Fix%20the%20login%20page", body: { archived: true } },
    ]);
  });
});

describe("the session list store", () => {
  it("applies the user's events: state and title patch their row in place, a deletion drops it", async () => {
    serve((call) => (call.path === "/api/projects/p/agents/a/sessions?category=active" ? { sessions: [session("one", { lastActiveAt: 2 }), session("two", { lastActiveAt: 1 })] } : undefined));
    await loadSessions("p", ["a"]);
    expect(sessionList.sessions.map((s) => s.id)).toEqual(["one", "two"]);
    const two = sessionList.sessions[1];
    applyUserEvent({ type: "session_title", sessionId: "two", title: "Renamed elsewhere" });
    applyUserEvent({ type: "session_state", sessionId: "two", state: "running" });
    expect(sessionList.sessions[1]).toBe(two);
    expect(two).toMatchObject({ title: "Renamed elsewhere", state: "running" });
    applyUserEvent({ type: "session_deleted", sessionId: "one" });
    expect(sessionList.sessions.map((s) => s.id)).toEqual(["two"]);
  });
});

describe("VaultPanel", () => {
  it("keeps a stored value unless it is retyped, and a new row keeps its focus while typed in", async () => {
    const calls = serve((call) => {
      if (call.path === "/api/projects/p/agents/a/vault") return call.method === "GET" ? { entries: [{ name: "GITHUB_TOKEN", value: "gh••••" }] } : {};
      return undefined;
    });
    render(() => <VaultPanel projectId="p" agentId="a" readOnly={false} systemConfig="system_prompt: {{VAULT}}" onConfig={() => undefined} />);
    await screen.findByDisplayValue("GITHUB_TOKEN");
    await userEvent.click(screen.getByRole("button", { name: "Add secret" }));
    const names = screen.getAllByLabelText("Name");
    const fresh = names[1];
    if (fresh === undefined) throw new Error("the new row is missing");
    await userEvent.type(fresh, "NPM_TOKEN");
    expect(fresh).toHaveFocus();
    expect(fresh).toHaveValue("NPM_TOKEN");
    await userEvent.type(screen.getAllByLabelText("Value")[0] ?? fresh, "npm-secret");
    await userEvent.click(screen.getByRole("button", { name: "Save vault" }));
    expect(await screen.findByText("Vault saved.")).toBeInTheDocument();
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ values: { GITHUB_TOKEN: null, NPM_TOKEN: "npm-secret" } });
  });
});

describe("UsersAdmin", () => {
  it("shows a spinner, then the users with what may be done to each, and reloads the list after a change", async () => {
    let release: (() => void) | undefined;
    const ready = new Promise<void>((r) => (release = r));
    const users = [
      { userId: "admin", isAdmin: true, passwordIsInitial: false, createdAt: 1 },
      { userId: "bob", isAdmin: false, passwordIsInitial: true, createdAt: 2 },
    ];
    setFetch(async (input, init) => {
      await ready;
      if (init?.method === "POST") {
        const body = JSON.parse(String(init.body)) as { userId: string };
        users.push({ userId: body.userId, isAdmin: false, passwordIsInitial: false, createdAt: 3 });
        return new Response(JSON.stringify({ userId: body.userId }), { status: 201 });
      }
      expect(String(input)).toBe("/api/admin/users");
      return new Response(JSON.stringify({ users }));
    });
    render(() => (
      <TestRouter>
        <UsersAdmin self="admin" />
      </TestRouter>
    ));
    expect(screen.getByRole("status", { name: "Loading users" })).toBeInTheDocument();
    release?.();
    const bob = (await screen.findByText("bob")).closest("tr");
    if (bob === null) throw new Error("no row for bob");
    expect(bob).toHaveTextContent("user (initial password)");
    expect(within(bob).getByRole("button", { name: "Delete" })).toBeInTheDocument();
    const admin = screen.getAllByText("admin", { selector: "td" })[0]?.closest("tr") ?? null;
    if (admin === null) throw new Error("no row for admin");
    expect(within(admin).queryByRole("button", { name: "Delete" })).not.toBeInTheDocument();

    await userEvent.type(screen.getByLabelText("New user id"), "carol");
    await userEvent.type(screen.getByLabelText("First password"), "first-password");
    await userEvent.click(screen.getByRole("button", { name: "Create user" }));
    expect(await screen.findByText("carol created.")).toBeInTheDocument();
    expect(await screen.findByText("carol", { selector: "td" })).toBeInTheDocument();
  });
});
