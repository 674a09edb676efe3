// The chat page's states for one session, through the real controller and transport with
// fetch scripted: a spinner while the history is out, "No messages yet" for an empty
// session, and for a session that does not exist (the stream answers 404) an error with a
// way back to a new chat, not a spinner.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import { SessionView } from "../src/features/chat/SessionView";
import { TestRouter } from "./helpers/test-router";

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const notFound = (path: string) => json(404, { error: { code: "not_found", message: `${path} not found` } });
/** An SSE response that stays open and sends nothing. */
const openStream = () => new Response(new ReadableStream({ start() {} }), { status: 200, headers: { "content-type": "text/event-stream" } });

const SESSION = {
  id: "s1",
  projectId: "p",
  agentId: "a",
  title: "Empty one",
  provider: "x",
  modelId: "y",
  workspace: "/home/me/site",
  approvalMode: "allow-all",
  archived: false,
  state: "idle",
  createdAt: 1,
  lastActiveAt: 1,
};

/** Scripts fetch by path (no query); anything unscripted is a 404. */
function serve(route: Record<string, () => Response | Promise<Response>>) {
  vi.stubGlobal("fetch", async (input: RequestInfo | URL) => {
    const path = new URL(String(input instanceof Request ? input.url : input), "http://localhost").pathname;
    return (route[path] ?? (() => notFound(path)))();
  });
}

afterEach(() => vi.unstubAllGlobals());

describe("chat page states", () => {
  it("shows a spinner while the history is out, then says an empty session has no messages yet", async () => {
    let answer!: () => void;
    const history = new Promise<Response>((resolve) => (answer = () => resolve(json(200, { messages: [], state: "idle", hasMore: false }))));
    serve({ "/api/sessions/s1/stream": openStream, "/api/sessions/s1/messages": () => history, "/api/sessions/s1": () => json(200, SESSION) });
    render(() => <TestRouter><SessionView sessionId="s1" /></TestRouter>);
    expect(await screen.findByRole("status", { name: "Loading the conversation" })).toBeInTheDocument();
    answer();
    expect(await screen.findByText("No messages yet. Write below to start.")).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Loading the conversation" })).not.toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: "Message" })).toBeInTheDocument();
  });

  it("says so when the session does not exist, and links to a new chat", async () => {
    serve({});
    render(() => <TestRouter><SessionView sessionId="s1" /></TestRouter>);
    expect(await screen.findByRole("alert")).toHaveTextContent("This session does not exist, or you cannot see it.");
    expect(screen.getByRole("link", { name: "Start a new chat" })).toHaveAttribute("href", "/chat");
    expect(screen.queryByRole("status", { name: "Loading the conversation" })).not.toBeInTheDocument();
  });

  it("says why the history could not be loaded", async () => {
    serve({ "/api/sessions/s1/stream": openStream, "/api/sessions/s1/messages": () => json(500, { error: { code: "internal", message: "the trace is unreadable" } }), "/api/sessions/s1": () => json(200, SESSION) });
    render(() => <TestRouter><SessionView sessionId="s1" /></TestRouter>);
    expect(await screen.findByRole("alert")).toHaveTextContent("the trace is unreadable");
    expect(screen.queryByRole("status", { name: "Loading the conversation" })).not.toBeInTheDocument();
  });
});
