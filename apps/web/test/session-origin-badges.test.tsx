// The session list marks forks and replays: the list API's `forkedFrom` and `replayOf` are
// read into the summary; the sidebar gives such a row a "fork" or "replay" badge and a link to
// the session it came from, named by that session's title when it is listed (else by its
// id's tail); a session started by a person has neither.
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, within } from "@solidjs/testing-library";
import { setFetch } from "../src/api/http";
import { sessionOf } from "../src/api/sessions";
import { originOf, SessionSidebar } from "../src/features/sessions/SessionSidebar";
import { loadProjects } from "../src/state/project-store";
import { TestRouter } from "./helpers/test-router";

afterEach(() => setFetch((i, init) => fetch(i, init)));

const ORIGINAL = "session-2026-07-18-03-00-00-00000001";
const FORK = "session-2026-07-18-03-05-00-00000002";
const REPLAY = "session-2026-07-18-03-06-00-00000003";
const RECORDED = "session-2026-07-01-09-00-00-0000abcd";

const row = (id: string, title: string, extra: Record<string, unknown>) => ({ id, projectId: "p", agentId: "a", title, provider: "x", modelId: "y", workspace: "/home/me/site", approvalMode: "allow-all", state: "idle", createdAt: 1, lastActiveAt: 1, ...extra });

describe("session origins in the list", () => {
  it("reads forkedFrom and replayOf from the API", () => {
    const fork = sessionOf(row(FORK, "Fix (1)", { forkedFrom: { sessionId: ORIGINAL, at: "001:000004" }, replayOf: null }));
    expect(fork?.forkedFrom).toEqual({ sessionId: ORIGINAL, at: "001:000004" });
    expect(fork?.replayOf).toBeNull();
    const replay = sessionOf(row(REPLAY, "Replay", { forkedFrom: null, replayOf: RECORDED }));
    expect(replay?.replayOf).toBe(RECORDED);
    expect(replay !== undefined && originOf(replay)).toEqual({ kind: "replay", sessionId: RECORDED });
    // An older server sends neither field: not a fork, not a replay.
    const plain = sessionOf(row(ORIGINAL, "Fix", {}));
    expect(plain?.forkedFrom).toBeNull();
    expect(plain !== undefined && originOf(plain)).toBeUndefined();
  });

  it("badges forks and replays in the sidebar and links them to their origin", async () => {
    const sessions = [
      row(ORIGINAL, "Fix the login page", { forkedFrom: null, replayOf: null, lastActiveAt: 3 }),
      row(FORK, "Fix the login page (1)", { forkedFrom: { sessionId: ORIGINAL, at: "001:000004" }, replayOf: null, lastActiveAt: 2 }),
      row(REPLAY, "Replayed demo", { forkedFrom: null, replayOf: RECORDED, lastActiveAt: 1 }),
    ];
    setFetch(async (input) => {
      const path = new URL(String(input), "http://localhost");
      const reply = (body: unknown) => new Response(JSON.stringify(body), { status: 200 });
      if (path.pathname === "/api/projects") return reply({ projects: [{ projectId: "p", ownerUserId: "me", role: "owner" }] });
      if (path.pathname === "/api/projects/p/agents") return reply({ agents: [{ agentId: "a" }] });
      if (path.pathname === "/api/projects/p/models") return reply({ models: [], defaultModel: null, visionModel: null });
      if (path.pathname === "/api/projects/p/agents/a/sessions") return reply({ sessions });
      return new Response(JSON.stringify({ error: { code: "not_found", message: "no" } }), { status: 404 });
    });
    await loadProjects("me");
    render(() => (
      <TestRouter>
        <SessionSidebar />
      </TestRouter>
    ));
    const nav = screen.getByRole("navigation", { name: "Sessions" });
    const forkLink = await within(nav).findByRole("link", { name: "Forked from Fix the login page at 001:000004" });
    expect(forkLink).toHaveAttribute("href", `/chat/${ORIGINAL}`);
    expect(forkLink.parentElement).toHaveTextContent("fork");
    const replayLink = within(nav).getByRole("link", { name: "Replay of 09-00-00-0000abcd" });
    expect(replayLink).toHaveAttribute("href", `/chat/${RECORDED}`);
    expect(replayLink.parentElement).toHaveTextContent("replay");
    // Three sessions, two marked.
    expect(within(nav).getAllByRole("link", { name: /^(Forked from|Replay of) / })).toHaveLength(2);
    const original = within(nav).getByRole("link", { name: /^Fix the login pagea ·/ });
    expect(original.closest("li")?.textContent).not.toMatch(/fork|replay/);
  });
});
