// Fork and subagent sessions: the stream offers Fork only on the newest stats line of a
// completed task while the session is idle; the button shows progress and a refusal's
// message; the API call posts no position and reads the new session (or the 409). The
// session list's "subagents" view asks for category=subagent and names untitled children.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { TestRouter } from "./helpers/test-router";
import { ApiError, setFetch } from "../src/api/http";
import { forkSession, listSessions } from "../src/api/sessions";
import type { SessionSummary } from "../src/api/types";
import { StreamList, type StreamActions } from "../src/features/chat/StreamList";
import type { StatsItem, ViewItem } from "../src/lib/stream/view-model";
import { sessionLabel, sessionsInView } from "../src/state/session-list-store";

afterEach(() => setFetch((i, init) => fetch(i, init)));

const stats = (id: string, completed: boolean, running = false): StatsItem => ({
  kind: "stats",
  id,
  running,
  completed,
  stats: { requests: 1, tokens: { cache_read: 0, cache_write: 100, output: 10, total: 110 }, durationMs: 1000, generationMs: 500 },
});
const answer = (id: string): ViewItem => ({ kind: "assistant", id, text: `answer ${id}`, streaming: false, stopReason: undefined, origin: undefined });

function list(items: ViewItem[], { running = false, fork }: { running?: boolean; fork?: StreamActions["fork"] } = {}) {
  const actions: StreamActions = { decide: async () => undefined, retryNow: async () => undefined, giveUp: async () => undefined, ...(fork === undefined ? {} : { fork }) };
  return render(() =>
    <TestRouter>
      <StreamList items={items} approvals={[]} running={running} pricing={undefined} actions={actions} />
    </TestRouter>,
  );
}

describe("Fork button", () => {
  const fork = async () => undefined;

  it("is on the last completed task of an idle session only", () => {
    list([answer("a"), stats("s1", true), answer("b"), stats("s2", true)], { fork });
    expect(screen.getAllByRole("button", { name: "Fork" })).toHaveLength(1);
    const lines = screen.getAllByLabelText("Task statistics");
    expect(lines[1]?.parentElement).toContainElement(screen.getByRole("button", { name: "Fork" }));
  });

  it("is absent while a task runs, after a task that did not complete, or without a fork action", () => {
    const { unmount } = list([answer("a"), stats("s1", true)], { fork, running: true });
    expect(screen.queryByRole("button", { name: "Fork" })).not.toBeInTheDocument();
    unmount();
    const second = list([answer("a"), stats("s1", true), answer("b"), stats("s2", false)], { fork });
    expect(screen.queryByRole("button", { name: "Fork" })).not.toBeInTheDocument();
    second.unmount();
    list([answer("a"), stats("s1", true)]);
    expect(screen.queryByRole("button", { name: "Fork" })).not.toBeInTheDocument();
  });

  it("shows progress, then the server's refusal next to the button", async () => {
    let reject: ((e: unknown) => void) | undefined;
    const onFork = vi.fn(() => new Promise<void>((_, r) => (reject = r)));
    list([answer("a"), stats("s1", true)], { fork: onFork });
    await userEvent.click(screen.getByRole("button", { name: "Fork" }));
    expect(screen.getByRole("button", { name: "Forking…" })).toBeDisabled();
    reject?.(new ApiError(409, "cannot_fork", "session s1 has no completed task to fork from"));
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not fork: session s1 has no completed task to fork from");
    expect(screen.getByRole("button", { name: "Fork" })).toBeEnabled();
    expect(onFork).toHaveBeenCalledTimes(1);
  });
});

describe("fork and subagent API calls", () => {
  const view = { id: "session-2026-07-18-03-10-00-0000beef", projectId: "p", agentId: "a", title: "Greeting (1)", provider: "x", modelId: "y", workspace: "/w", approvalMode: "allow-all", thinkingLevel: null, archived: false, source: null, forkedFrom: null, replayOf: null, state: "idle", createdAt: 1, lastActiveAt: 1 };

  it("posts a fork without a position and reads the new session, or the 409", async () => {
    const bodies: unknown[] = [];
    let status = 201;
    setFetch(async (input, init) => {
      expect(String(input)).toBe("/api/sessions/s1/fork");
      bodies.push(JSON.parse(String(init?.body)));
      return status === 201 ? new Response(JSON.stringify(view), { status }) : new Response(JSON.stringify({ error: { code: "task_in_progress", message: "a task is running" } }), { status });
    });
    expect(await forkSession("s1")).toMatchObject({ id: view.id, title: "Greeting (1)", source: null });
    expect(bodies).toEqual([{}]);
    status = 409;
    await expect(forkSession("s1")).rejects.toMatchObject({ status: 409, code: "task_in_progress", message: "a task is running" });
  });

  it("lists subagent sessions by category and names them when untitled", async () => {
    const urls: string[] = [];
    setFetch(async (input) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ sessions: [{ ...view, id: "session-2026-07-18-03-11-00-c41dc41d", title: null, source: "subagent" }] }));
    });
    const [child] = await listSessions("p", "a", "subagent");
    expect(urls).toEqual(["/api/projects/p/agents/a/sessions?category=subagent"]);
    expect(child?.source).toBe("subagent");
    expect(child !== undefined && sessionLabel(child)).toBe("Subagent c41dc41d");
  });

  it("keeps children out of the person's list and archived ones apart", () => {
    const s = (id: string, extra: Partial<SessionSummary>): SessionSummary => ({ ...view, approvalMode: "allow-all", state: "idle", id, ...extra });
    const all = [s("own", {}), s("child", { source: "subagent", title: null }), s("old", { archived: true })];
    expect(sessionsInView(all, "active").map((x) => x.id)).toEqual(["own"]);
    expect(sessionsInView(all, "subagent").map((x) => x.id)).toEqual(["child"]);
    expect(sessionsInView(all, "archived").map((x) => x.id)).toEqual(["old"]);
  });
});
