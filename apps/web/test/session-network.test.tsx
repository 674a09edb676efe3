// The network switch of an open session, through the real session view, controller and
// transport with fetch scripted: the header shows what the one-session read says; a change
// the server accepts is sent as `PATCH {sandboxNetwork}` and shown; one it refuses (403)
// leaves the switch as it was and shows the server's message; and a change someone else
// made, once the session list has re-read the session (the user stream's session_updated),
// reaches the open header.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { SessionView } from "../src/features/chat/SessionView";
import { patchSession as patchListedSession, removeSession, upsertSession } from "../src/state/session-list-store";
import { sessionOf } from "../src/api/sessions";
import type { SessionSummary } from "../src/api/types";
import { TestRouter } from "./helpers/test-router";

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const openStream = () => new Response(new ReadableStream({ start() {} }), { status: 200, headers: { "content-type": "text/event-stream" } });

const ROW = { id: "s1", projectId: "p", agentId: "a", title: "Net", provider: "x", modelId: "y", workspace: "/w/site", approvalMode: "allow-all", archived: false, state: "idle", createdAt: 1, lastActiveAt: 1, sandboxNetwork: false };

/** Serves the session (as `permissions` says), its empty history and stream; PATCHes answer `patchStatus`. */
function serve(permissions: { control: boolean; allowNetwork: boolean }, patchStatus: number): unknown[] {
  const patches: unknown[] = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input instanceof Request ? input.url : input), "http://localhost").pathname;
    if (path === "/api/sessions/s1" && init?.method === "PATCH") {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      patches.push(body);
      return patchStatus === 200
        ? json(200, { ...ROW, ...body })
        : json(patchStatus, { error: { code: "forbidden", message: "only a project owner or the admin may allow a session's commands the network (sandboxNetwork)" } });
    }
    if (path === "/api/sessions/s1") return json(200, { ...ROW, sandbox: { available: true, enabled: true, serverNetwork: false }, permissions });
    if (path === "/api/sessions/s1/messages") return json(200, { messages: [], state: "idle", hasMore: false });
    if (path === "/api/sessions/s1/stream") return openStream();
    return json(404, { error: { code: "not_found", message: `${path} not found` } });
  });
  return patches;
}

afterEach(() => {
  vi.unstubAllGlobals();
  removeSession("s1");
});

const networkSwitch = () => screen.findByRole("switch", { name: "Network for this session's commands" });

describe("an open session's network switch", () => {
  it("sends the change the server accepts and shows it", async () => {
    const patches = serve({ control: true, allowNetwork: true }, 200);
    render(() => <TestRouter><SessionView sessionId="s1" /></TestRouter>);
    const toggle = await networkSwitch();
    expect(toggle).toHaveAttribute("aria-checked", "false");
    await userEvent.click(toggle);
    await vi.waitFor(() => expect(toggle).toHaveAttribute("aria-checked", "true"));
    expect(patches).toEqual([{ sandboxNetwork: true }]);
  });

  it("leaves the switch as it was when the server refuses, and shows why", async () => {
    // The reader may (the read says so), but the server has changed its mind since: it decides.
    const patches = serve({ control: true, allowNetwork: true }, 403);
    render(() => <TestRouter><SessionView sessionId="s1" /></TestRouter>);
    const toggle = await networkSwitch();
    await userEvent.click(toggle);
    expect(await screen.findByText(/only a project owner or the admin may allow/)).toBeInTheDocument();
    expect(patches).toEqual([{ sandboxNetwork: true }]);
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    expect(toggle).toHaveAttribute("aria-checked", "false");
  });

  it("follows a change someone else made, once the session list re-read the session", async () => {
    serve({ control: true, allowNetwork: false }, 200);
    upsertSession(sessionOf(ROW) as SessionSummary);
    render(() => <TestRouter><SessionView sessionId="s1" /></TestRouter>);
    const toggle = await networkSwitch();
    expect(toggle).toHaveAttribute("aria-checked", "false");
    expect(toggle).toBeDisabled(); // this reader may not allow it…
    patchListedSession("s1", { sandboxNetwork: true }); // …but an owner did
    await vi.waitFor(() => expect(toggle).toHaveAttribute("aria-checked", "true"));
    expect(toggle).toBeEnabled(); // and the creator may take it back
  });
});
