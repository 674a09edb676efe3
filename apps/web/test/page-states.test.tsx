// The pages' loading, empty and error states against a scripted server (the transport
// swapped): a spinner while the first answer is out, a plain "nothing yet" once an empty
// answer is in, and an error that says what failed (with Retry where the page waits on the
// project store) instead of a spinner that never stops. Models, Agents and Usage here; the
// chat page's states are in chat-states.test.tsx, the users admin's in store-backed.test.tsx.
import { afterEach, describe, expect, it, vi } from "vitest";

// uPlot (imported by the usage page) reads the device pixel ratio through matchMedia when it
// loads; jsdom has none, so a media query that never matches stands in, before the imports.
vi.hoisted(() => {
  window.matchMedia ??= (query: string) =>
    ({ matches: false, media: query, onchange: null, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {}, dispatchEvent: () => false }) as MediaQueryList;
});
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { setFetch } from "../src/api/http";
import AgentsPage from "../src/features/agents/AgentsPage";
import ModelsPage from "../src/features/models/ModelsPage";
import UsagePage from "../src/features/usage/UsagePage";
import { loadProjects } from "../src/state/project-store";
import { TestRouter } from "./helpers/test-router";

type Answer = { status: number; body: unknown } | Promise<{ status: number; body: unknown }>;

/** A fake server: `route` answers each GET by path (without the query); undefined is a 404. */
function serve(route: (path: string) => Answer | undefined): void {
  setFetch(async (input) => {
    const url = new URL(String(input), "http://localhost");
    const answer = await (route(url.pathname) ?? { status: 404, body: { error: { code: "not_found", message: `${url.pathname} not found` } } });
    return new Response(JSON.stringify(answer.body), { status: answer.status });
  });
}

const ok = (body: unknown) => ({ status: 200, body });
const boom = (message: string) => ({ status: 500, body: { error: { code: "internal", message } } });

/** A promise the test settles itself: the request stays out until then. */
function later<T>() {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (settle = resolve));
  return { promise, settle };
}

const PROJECTS = ok({ projects: [{ projectId: "p", name: "Mine", ownerUserId: "u", role: "owner" }] });
const EMPTY_MODELS = ok({ models: [], defaultModel: null, visionModel: null });
const AGENTS = ok({ agents: [] });

afterEach(() => setFetch((i, init) => fetch(i, init)));

describe("Models page", () => {
  it("shows a spinner while the model table loads, then says there are no models yet", async () => {
    const models = later<{ status: number; body: unknown }>();
    serve((path) => ({ "/api/projects": PROJECTS, "/api/projects/p/agents": AGENTS, "/api/projects/p/models": models.promise, "/api/projects/p/models/presets": ok({ providers: [], models: [] }) })[path]);
    const loading = loadProjects("u");
    render(() => <TestRouter><ModelsPage /></TestRouter>);
    expect(await screen.findByRole("status", { name: "Loading models" })).toBeInTheDocument();
    models.settle(EMPTY_MODELS);
    await loading;
    expect(await screen.findByText(/No models yet/)).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Loading models" })).not.toBeInTheDocument();
  });

  it("says the models could not be loaded instead of spinning, and Retry loads them", async () => {
    let failing = true;
    serve((path) => ({ "/api/projects": PROJECTS, "/api/projects/p/agents": AGENTS, "/api/projects/p/models": failing ? boom("the model table is unreadable") : EMPTY_MODELS, "/api/projects/p/models/presets": ok({ providers: [], models: [] }) })[path]);
    await loadProjects("u");
    render(() => <TestRouter><ModelsPage /></TestRouter>);
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not load the models.");
    expect(screen.queryByRole("status", { name: "Loading models" })).not.toBeInTheDocument();
    failing = false;
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByText(/No models yet/)).toBeInTheDocument();
  });
});

describe("Agents page", () => {
  it("says the agents could not be loaded (not that there are none), and Retry loads them", async () => {
    let failing = true;
    serve((path) => ({ "/api/projects": PROJECTS, "/api/projects/p/agents": failing ? boom("agents are unreadable") : AGENTS, "/api/projects/p/models": EMPTY_MODELS })[path]);
    await loadProjects("u");
    render(() => <TestRouter><AgentsPage /></TestRouter>);
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not load the agents.");
    expect(screen.queryByText("This project has no agents yet.")).not.toBeInTheDocument();
    failing = false;
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("This project has no agents yet.")).toBeInTheDocument();
  });
});

describe("Usage page", () => {
  // Its empty state (the notice above empty charts) needs uPlot, which needs a canvas jsdom
  // lacks; the browser suite's usage step covers the charts.
  it("shows a spinner while the first answer is out", async () => {
    const usage = later<{ status: number; body: unknown }>();
    serve((path) => ({ "/api/projects": PROJECTS, "/api/projects/p/agents": AGENTS, "/api/projects/p/models": EMPTY_MODELS, "/api/projects/p/usage": usage.promise, "/api/projects/p/usage/errors": ok({ items: [], total: 0 }) })[path]);
    await loadProjects("u");
    render(() => <TestRouter><UsagePage /></TestRouter>);
    expect(await screen.findByRole("status", { name: "Loading usage" })).toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("says why the usage could not be loaded, with no spinner left", async () => {
    serve((path) => ({ "/api/projects": PROJECTS, "/api/projects/p/agents": AGENTS, "/api/projects/p/models": EMPTY_MODELS, "/api/projects/p/usage": boom("projections.db is locked"), "/api/projects/p/usage/errors": ok({ items: [], total: 0 }) })[path]);
    await loadProjects("u");
    render(() => <TestRouter><UsagePage /></TestRouter>);
    expect(await screen.findByRole("alert")).toHaveTextContent("projections.db is locked");
    expect(screen.queryByRole("status", { name: "Loading usage" })).not.toBeInTheDocument();
  });
});
