// The time-travel parts on the Traces page: the scrubber steps, jumps to requests and tool
// calls, plays and pauses by button and keyboard, and names the cursor's event; the state
// panel shows its empty, loading and error states (Retry asks again) and the state's
// sections with added, removed and changed rows marked for sight and for screen readers,
// folding a long unchanged start of a section, and a context message the server cut (a text
// over 4 MiB) with a link that loads the whole record by its position.
// The TimeTravel section, against a stubbed fetch, loads every file of the session, asks
// for states by position, and forks at the cursor into the new session's chat.
import { createSignal } from "solid-js";
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, createMemoryHistory } from "@solidjs/router";
import { assistantText, eventMessage, sessionMeta, toolCall, toolCallOutput, userText, type OmniMessage } from "@penguin/omnimessage";
import { setFetch } from "../src/api/http";
import { sessionStateOf } from "../src/api/time-travel";
import { getTraceFile } from "../src/api/traces";
import { Scrubber } from "../src/features/traces/Scrubber";
import { StatePanel } from "../src/features/traces/StatePanel";
import { TimeTravel } from "../src/features/traces/TimeTravel";
import { scrubEventsOf, type ScrubEvent } from "../src/lib/time-travel/cursor";
import { sessionList } from "../src/state/session-list-store";

afterEach(() => setFetch((i, init) => fetch(i, init)));

const SID = "session-2026-01-02-03-04-05-abcdef01";
const meta = () => sessionMeta({ session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "", workspace: "/w" });
const trace: OmniMessage[] = [
  meta(),
  userText("read notes.txt"),
  eventMessage({ type: "request_begin" }),
  toolCall({ name: "read_file", arguments: '{"file_path":"notes.txt"}', tool_call_id: "call_1" }),
  toolCallOutput({ tool_call_id: "call_1", output: "hello" }),
  eventMessage({ type: "request_begin" }),
  assistantText("It says hello."),
];
const events = scrubEventsOf([{ fileIndex: 1, lines: trace.map((message, i) => ({ line: i + 1, message })) }]);

function scrubber(start = 0) {
  const [index, setIndex] = createSignal(start);
  const [playing, setPlaying] = createSignal(false);
  render(() => <Scrubber events={events} index={index()} playing={playing()} onIndex={setIndex} onPlaying={setPlaying} />);
  return { index, playing };
}

describe("Scrubber", () => {
  it("steps, jumps to tool calls and requests, and names the cursor's event", async () => {
    const user = userEvent.setup();
    const { index } = scrubber();
    expect(screen.getByLabelText("Cursor")).toHaveTextContent("Event 1 of 7");
    expect(screen.getByRole("button", { name: "Step back" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Next tool call" }));
    expect(index()).toBe(3);
    expect(screen.getByLabelText("Cursor")).toHaveTextContent("001:000004");
    expect(screen.getByLabelText("Cursor")).toHaveTextContent("tool_call read_file");
    expect(screen.getByRole("button", { name: "Next tool call" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Next request" }));
    expect(index()).toBe(5);
    await user.click(screen.getByRole("button", { name: "Previous request" }));
    expect(index()).toBe(2);
    await user.click(screen.getByRole("button", { name: "Step forward" }));
    expect(index()).toBe(3);
    await user.click(screen.getByRole("button", { name: "Step back" }));
    expect(index()).toBe(2);
    expect(screen.getByRole("slider", { name: "Event" })).toHaveValue("3");
  });

  it("takes arrow keys, Home/End and space from the keyboard", async () => {
    const user = userEvent.setup();
    const { index, playing } = scrubber(2);
    screen.getByRole("group", { name: "Scrubber" }).focus();
    await user.keyboard("{ArrowRight}{ArrowRight}");
    expect(index()).toBe(4);
    await user.keyboard("{ArrowLeft}");
    expect(index()).toBe(3);
    await user.keyboard("{End}");
    expect(index()).toBe(6);
    await user.keyboard("{Home}");
    expect(index()).toBe(0);
    await user.keyboard(" ");
    expect(playing()).toBe(true);
    expect(screen.getByRole("button", { name: "Pause" })).toHaveAttribute("aria-pressed", "true");
    // Space on a focused button plays/pauses; it does not also click the button.
    screen.getByRole("button", { name: "Step forward" }).focus();
    await user.keyboard(" ");
    expect(playing()).toBe(false);
    expect(index()).toBe(0);
  });
});

const state = (patch: Record<string, unknown>) => sessionStateOf({ sessionId: SID, at: { n: 4, position: "001:000004", record: "model_msg tool_call" }, records: 7, settings: { provider: "p", model_id: "m" }, ...patch });

describe("StatePanel", () => {
  it("says what it shows when empty, loading or failed, and Retry asks again", async () => {
    const user = userEvent.setup();
    let retried = 0;
    const [error, setError] = createSignal<string | undefined>(undefined);
    const [loading, setLoading] = createSignal(false);
    render(() => <StatePanel state={undefined} previous={undefined} loading={loading()} error={error()} onRetry={() => (retried += 1)} />);
    expect(screen.getByText(/Move the cursor to an event/)).toBeInTheDocument();
    setLoading(true);
    expect(screen.getByRole("status", { name: "Loading the state" })).toBeInTheDocument();
    setLoading(false);
    setError("HTTP 400: invalid position");
    expect(screen.getByRole("alert")).toHaveTextContent("The state could not be loaded: HTTP 400: invalid position");
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(retried).toBe(1);
  });

  it("shows every section and marks the diff to the previous step", () => {
    const call = toolCall({ name: "read_file", arguments: '{"file_path":"notes.txt"}', tool_call_id: "call_1" });
    const previous = state({ nextContext: [userText("read notes.txt")], pendingApprovals: [], turns: 0, settings: { provider: "p", model_id: "m", approvalMode: "always-ask" } });
    const current = state({ nextContext: [userText("read notes.txt"), call], openToolCalls: [call.payload], turns: 1, settings: { provider: "p", model_id: "m", approvalMode: "allow-all" }, steeringQueue: [{ id: "st1", text: "hurry" }] });
    render(() => <StatePanel state={current} previous={previous} loading={false} error={undefined} onRetry={() => undefined} />);
    const panel = screen.getByRole("region", { name: "State at the cursor" });
    expect(within(panel).getByRole("heading", { name: "State after event 4 of 7" })).toBeInTheDocument();
    for (const title of ["Context (current segment)", "Open tool calls", "Pending approvals", "Steering queue", "Settings", "Usage so far", "Turns", "Compaction segment", "Goal", "Files read", "Files written"]) {
      expect(within(panel).getByRole("region", { name: title })).toBeInTheDocument();
    }
    const open = within(panel).getByRole("region", { name: "Open tool calls" });
    const added = open.querySelector('[data-change="added"]');
    expect(added).toHaveTextContent('added: read_file {"file_path":"notes.txt"}');
    const settings = within(panel).getByRole("region", { name: "Settings" });
    expect(settings.querySelector('[data-change="changed"]')).toHaveTextContent("changed: approvalMode: allow-all (was always-ask)");
    expect(within(panel).getByRole("region", { name: "Pending approvals" })).toHaveTextContent("Nothing waits for approval.");
    expect(within(panel).getByRole("region", { name: "Steering queue" }).querySelector('[data-change="added"]')).toHaveTextContent("hurry");
    expect(within(panel).getByLabelText("Changes since the previous step")).toHaveTextContent("5 changes since the previous step");
  });
});

describe("StatePanel with a cut record", () => {
  it("shows what the server cut of a context message and links to the whole record by its position", () => {
    const output = toolCallOutput({ tool_call_id: "call_1", output: "line of output " });
    const raw = { ...output, payload: { ...output.payload, cut: { truncated: true, bytes: 31_457_280, recordBytes: 31_474_000, fields: ["output"], at: "001:000006" } } };
    const current = state({ nextContext: [userText("print a lot"), raw] });
    expect(current.contextCuts).toEqual([undefined, { bytes: 31_457_280, at: "001:000006" }]);
    render(() => <StatePanel state={current} previous={undefined} loading={false} error={undefined} onRetry={() => undefined} />);
    const context = screen.getByRole("region", { name: "Context (current segment)" });
    const link = within(context).getByRole("link", { name: "… 31.5 MB cut, load the whole record" });
    expect(link).toHaveAttribute("href", `/api/sessions/${SID}/records/001:000006`);
    expect(within(context).getAllByRole("link")).toHaveLength(1);
  });

  it("keeps a trace page's cut marker on its line, and none on a whole record", async () => {
    const output = toolCallOutput({ tool_call_id: "call_1", output: "line of output " });
    const raw = { ...output, payload: { ...output.payload, cut: { truncated: true, bytes: 2_000_000, recordBytes: 2_016_000, fields: ["output"], at: "001:000006" } } };
    setFetch(async () => new Response(JSON.stringify({ index: 1, lines: [{ line: 5, message: userText("go") }, { line: 6, message: raw }], total: 2, nextOffset: null }), { headers: { "content-type": "application/json" } }));
    const page = await getTraceFile("default_project", "default_agent", SID, 1);
    expect(page.lines.map((l) => l.cut)).toEqual([undefined, { bytes: 2_000_000, at: "001:000006" }]);
    expect(page.lines[1]!.message.payload).toMatchObject({ output: "line of output " });
  });
});

describe("StatePanel folding", () => {
  it("folds a long unchanged start of the context, keeps the change in view, and unfolds on request", async () => {
    const user = userEvent.setup();
    const old = Array.from({ length: 10 }, (_, i) => userText(`message ${i + 1}`));
    const previous = state({ nextContext: old });
    const current = state({ nextContext: [...old, assistantText("the new answer")] });
    render(() => <StatePanel state={current} previous={previous} loading={false} error={undefined} onRetry={() => undefined} />);
    const context = screen.getByRole("region", { name: "Context (current segment)" });
    expect(context.querySelectorAll("li[data-change]")).toHaveLength(7);
    expect(context.querySelector('[data-change="added"]')).toHaveTextContent("the new answer");
    expect(context).not.toHaveTextContent("message 4");
    expect(context).toHaveTextContent("message 5");
    await user.click(within(context).getByRole("button", { name: "Show 4 earlier unchanged" }));
    expect(context.querySelectorAll("li[data-change]")).toHaveLength(11);
    expect(context).toHaveTextContent("message 1");
  });
});

interface Call {
  method: string;
  url: string;
  body: unknown;
}

/** A stubbed server: two trace files, states by position, and a fork that answers a new session. */
function stubServer(calls: Call[]) {
  const files: Record<string, OmniMessage[]> = { "1": trace.slice(0, 4), "2": [meta(), ...trace.slice(4)] };
  setFetch(async (input, init) => {
    const url = new URL(String(input), "http://x");
    const method = init?.method ?? "GET";
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    calls.push({ method, url: `${url.pathname}${url.search}`, body });
    const reply = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });
    const file = /\/traces\/[^/]+\/(\d+)$/.exec(url.pathname);
    if (file !== null) {
      const lines = files[file[1]!] ?? [];
      // As the server does with view=outline: each envelope cut to its type and its payload's type, role and name.
      const outline = (m: OmniMessage) => {
        const p = m.payload as { type?: string; role?: string; name?: string };
        return { type: m.type, payload: m.type === "session_meta" ? {} : { type: p.type, ...(p.role === undefined ? {} : { role: p.role }), ...(p.name === undefined ? {} : { name: p.name }) } };
      };
      const asked = url.searchParams.get("view") === "outline" ? outline : (m: OmniMessage) => m;
      return reply({ lines: lines.map((message, i) => ({ line: i + 1, message: asked(message) })), total: lines.length, nextOffset: null });
    }
    if (url.pathname.endsWith("/state")) {
      const at = url.searchParams.get("at") ?? "";
      if (at === "002:000004") return reply({ error: { code: "boom", message: "the fold failed" } }, 500);
      return reply({ sessionId: SID, at: { n: 1, position: at, record: "x" }, records: 8, settings: { provider: "p", model_id: "m" }, nextContext: [], turns: at.startsWith("002") ? 1 : 0 });
    }
    // A session recorded before workspace checkpoints: the files panel says so (no alert).
    if (url.pathname.endsWith("/checkpoints/changes")) return reply({ error: { code: "invalid_argument", message: `session ${SID} has no workspace checkpoint at or before record 8` } }, 400);
    if (url.pathname.endsWith("/fork")) return reply({ id: "session-2026-01-02-03-09-09-fedcba98", projectId: "proj", agentId: "default_agent", title: "Notes (1)", source: null }, 201);
    return reply({}, 404);
  });
}

describe("TimeTravel", () => {
  it("loads every file, asks for states by position, and forks at the cursor into the new chat", async () => {
    const user = userEvent.setup();
    const calls: Call[] = [];
    stubServer(calls);
    const history = createMemoryHistory();
    history.set({ value: "/traces" });
    const [position, setPosition] = createSignal<string | undefined>(undefined);
    const seen: (ScrubEvent | undefined)[] = [];
    render(() => (
      <MemoryRouter history={history} root={(p) => p.children}>
        <Route
          path="/traces"
          component={() => (
            <TimeTravel
              projectId="proj"
              agentId="default_agent"
              sessionId={SID}
              fileIndexes={[1, 2]}
              position={position()}
              onPosition={(e) => {
                seen.push(e);
                setPosition(e?.position);
              }}
            />
          )}
        />
        <Route path="/chat/:id" component={() => <p>chat page</p>} />
      </MemoryRouter>
    ));
    // Both files are read; the cursor starts on the last event, whose state fails to load.
    await waitFor(() => expect(screen.getByLabelText("Cursor")).toHaveTextContent("Event 8 of 8"));
    expect(calls.filter((c) => /\/traces\/.+\/\d+\?/.test(c.url)).map((c) => c.url.split("?")[0]!.split("/").pop())).toEqual(["1", "2"]);
    // Time travel lists the events by their outline, not their whole envelopes.
    expect(calls.filter((c) => /\/traces\/.+\/\d+\?/.test(c.url)).every((c) => new URL(c.url, "http://x").searchParams.get("view") === "outline")).toBe(true);
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("the fold failed"));
    await screen.findByText("This session has no workspace checkpoints: its files were not recorded.");
    expect(screen.queryByRole("button", { name: "Restore files to here" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Previous tool call" }));
    expect(position()).toBe("001:000004");
    await waitFor(() => expect(screen.getByRole("heading", { name: /State after event/ })).toBeInTheDocument());
    const stateCalls = calls.filter((c) => c.url.includes("/state?"));
    expect(stateCalls.map((c) => decodeURIComponent(c.url.split("at=")[1] ?? ""))).toContain("001:000004");
    expect(stateCalls.every((c) => c.url.startsWith(`/api/sessions/${SID}/state?at=`))).toBe(true);
    await user.click(screen.getByRole("button", { name: "Fork from here" }));
    await waitFor(() => expect(history.get()).toBe("/chat/session-2026-01-02-03-09-09-fedcba98"));
    expect(calls.find((c) => c.method === "POST")).toEqual({ method: "POST", url: `/api/sessions/${SID}/fork`, body: { at: "001:000004" } });
    expect(sessionList.sessions.some((s) => s.id === "session-2026-01-02-03-09-09-fedcba98")).toBe(true);
    expect(seen.at(-1)?.position).toBe("001:000004");
  });
});
