// The agent tabs and the session details panel against a scripted server (the transport is
// swapped, every call recorded): the skill library in groups with install and a zip upload
// that asks before replacing; memory import whose `replace` needs a second confirmation and
// the {{MEMORY}} one-click insert; snapshot import's confirmation step; processes with their
// service link and Kill.
import { afterEach, describe, expect, it } from "vitest";
import { createSignal } from "solid-js";
import { render, screen, waitFor, within } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { TestRouter } from "./helpers/test-router";
import { setFetch } from "../src/api/http";
import { MemoryPanel } from "../src/features/agents/MemoryPanel";
import { OverviewPanel } from "../src/features/agents/OverviewPanel";
import { SkillsPanel } from "../src/features/agents/SkillsPanel";
import { DetailsPanel } from "../src/features/chat/DetailsPanel";
import type { SessionSummary } from "../src/api/types";

interface Call {
  method: string;
  path: string;
  body: unknown;
}

type Handler = (call: Call, calls: Call[]) => { status?: number; body?: unknown } | undefined;

/** Installs a fake server: the first handler that answers wins; anything unanswered is a 404. */
function serve(...handlers: Handler[]): Call[] {
  const calls: Call[] = [];
  setFetch(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const call = { method: init?.method ?? "GET", path: url.pathname, body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) };
    calls.push(call);
    for (const h of handlers) {
      const answer = h(call, calls);
      if (answer !== undefined) return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status ?? 200 });
    }
    return new Response(JSON.stringify({ error: { code: "not_found", message: `${call.method} ${call.path} not found` } }), { status: 404 });
  });
  return calls;
}

const on = (method: string, path: string, answer: (call: Call, calls: Call[]) => { status?: number; body?: unknown }): Handler => (call, calls) => (call.method === method && call.path === path ? answer(call, calls) : undefined);
const A = "/api/projects/p/agents/a";

afterEach(() => setFetch((i, init) => fetch(i, init)));

describe("SkillsPanel", () => {
  it("lists the library by group, installs a skill, and asks before replacing one from a zip", async () => {
    let installed: { name: string }[] = [];
    const calls = serve(
      on("GET", `${A}/skills`, () => ({ body: { skills: installed } })),
      on("GET", "/api/skills", () => ({ body: { groups: [{ name: "Engineering", skills: [{ name: "software-engineering", shortDescription: "Ship code" }] }, { name: "PenguinHarness", skills: [{ name: "penguin-cli", description: "Use the CLI" }] }] } })),
      on("POST", `${A}/skills`, () => {
        installed = [{ name: "software-engineering" }];
        return { body: { installed } };
      }),
      on("POST", `${A}/skills/archive`, (call) =>
        (call.body as { overwrite: boolean }).overwrite ? { status: 201, body: { installed: { name: "tidy" } } } : { status: 409, body: { error: { code: "already_exists", message: "skill tidy is already installed" } } },
      ),
    );
    render(() =><SkillsPanel projectId="p" agentId="a" readOnly={false} />);
    const engineering = await screen.findByRole("group", { name: "Engineering" });
    expect(within(engineering).getByText("Ship code")).toBeInTheDocument();
    await userEvent.click(within(engineering).getByRole("button", { name: "Install software-engineering" }));
    expect(await screen.findByText("Installed software-engineering.")).toBeInTheDocument();
    expect(calls.find((c) => c.method === "POST" && c.path === `${A}/skills`)?.body).toEqual({ names: ["software-engineering"] });
    expect(await screen.findByRole("link", { name: "Download software-engineering as zip" })).toHaveAttribute("href", `${A}/skills/software-engineering/archive`);

    await userEvent.upload(screen.getByLabelText("Skill zip file"), new File([new Uint8Array([80, 75, 3, 4])], "tidy.zip", { type: "application/zip" }));
    expect(await screen.findByText("skill tidy is already installed")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Replace it" }));
    expect(await screen.findByText("Installed the skill from tidy.zip.")).toBeInTheDocument();
    const uploads = calls.filter((c) => c.path === `${A}/skills/archive`).map((c) => c.body);
    expect(uploads).toEqual([
      { dataBase64: "UEsDBA==", overwrite: false },
      { dataBase64: "UEsDBA==", overwrite: true },
    ]);
  });
});

describe("MemoryPanel", () => {
  it("shows a scope's files, imports with a confirmed replace, and inserts {{MEMORY}}", async () => {
    const calls = serve(
      on("GET", `${A}/memory`, () => ({ body: { scopes: [{ key: "user", workspace: null, files: 1 }] } })),
      on("GET", `${A}/memory/scopes/user/files`, () => ({ body: { files: [{ path: "MEMORY.md", size: 10 }] } })),
      on("GET", `${A}/memory/files/user/MEMORY.md`, () => ({ body: { path: "user/MEMORY.md", size: 10, encoding: "utf8", content: "- remember tabs", truncated: false } })),
      on("POST", `${A}/memory/import`, (call) =>
        (call.body as { confirm: boolean }).confirm ? { body: { written: ["user/MEMORY.md"], skipped: [] } } : { status: 409, body: { error: { code: "confirm_required", message: "replace deletes every memory file first" } } },
      ),
      on("POST", `${A}/memory/template-placeholder`, () => ({ body: { systemConfig: "system_prompt: |\n  hi\n  {{MEMORY}}\n" } })),
    );
    const [config, setConfig] = createSignal("system_prompt: hi\n");
    render(() => <MemoryPanel projectId="p" agentId="a" readOnly={false} systemConfig={config()} onConfig={setConfig} />);
    await userEvent.click(await screen.findByRole("button", { name: "MEMORY.md" }));
    expect(await screen.findByText("- remember tabs")).toBeInTheDocument();

    await userEvent.selectOptions(screen.getByLabelText("Import mode"), "replace");
    const payload = { format: "penguin-memory", version: 1, files: [] };
    await userEvent.upload(screen.getByLabelText("Memory export file"), new File([JSON.stringify(payload)], "memory.json", { type: "application/json" }));
    expect(await screen.findByText("replace deletes every memory file first")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Replace all memory" }));
    expect(await screen.findByText(/Imported: 1 file written/)).toBeInTheDocument();
    expect(calls.filter((c) => c.path === `${A}/memory/import`).map((c) => c.body)).toEqual([
      { payload, mode: "replace", confirm: false },
      { payload, mode: "replace", confirm: true },
    ]);

    await userEvent.click(screen.getByRole("button", { name: "Insert {{MEMORY}}" }));
    await waitFor(() => expect(config()).toContain("{{MEMORY}}"));
    expect(screen.queryByRole("button", { name: "Insert {{MEMORY}}" })).toBeNull();
  });
});

describe("OverviewPanel", () => {
  it("asks for confirmation before importing a snapshot that is not newer", async () => {
    const calls = serve(
      on("GET", `${A}/snapshots`, () => ({ body: { version: 5, snapshots: [{ name: "v5.tar.gz", version: 5, size: 2048, mtimeMs: 0 }] } })),
      on("POST", `${A}/import`, (call) =>
        (call.body as { confirm: boolean }).confirm ? { body: { version: 2, previousVersion: 5, snapshot: "v5.tar.gz" } } : { status: 409, body: { error: { code: "confirm_required", message: "the snapshot is version 2 and the agent is at version 5" } } },
      ),
    );
    let reloaded = 0;
    render(() =><OverviewPanel projectId="p" agentId="a" readOnly={false} onConfig={() => void (reloaded += 1)} />);
    expect(await screen.findByText("v5.tar.gz")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Export snapshot" })).toHaveAttribute("href", `${A}/export`);
    await userEvent.upload(screen.getByLabelText("Snapshot file"), new File(["tarball"], "v2.tar.gz"));
    expect(await screen.findByText("the snapshot is version 2 and the agent is at version 5")).toBeInTheDocument();
    expect(reloaded).toBe(0);
    await userEvent.click(screen.getByRole("button", { name: "Replace with v2.tar.gz" }));
    expect(await screen.findByText(/Imported v2.tar.gz: the agent is now at version 2 \(the previous state was saved as v5.tar.gz\)/)).toBeInTheDocument();
    expect(reloaded).toBe(1);
    expect(calls.filter((c) => c.path === `${A}/import`).map((c) => (c.body as { confirm: boolean }).confirm)).toEqual([false, true]);
  });
});

describe("DetailsPanel", () => {
  it("lists processes with their local link and kills one", async () => {
    let status = "running";
    const calls = serve(
      on("GET", "/api/sessions/s1/processes", () => ({ body: { processes: [{ id: "p1", command: "npm run dev", label: "Start the dev server", status, started: "2026-07-18T03:00:00Z", serviceUrl: status === "running" ? "http://localhost:5173/" : undefined }] } })),
      on("POST", "/api/sessions/s1/processes/p1/kill", () => {
        status = "killed";
        return { body: { id: "p1", status: "killed" } };
      }),
    );
    const session: SessionSummary = { id: "s1", projectId: "p", agentId: "a", title: null, provider: "x", modelId: "y", workspace: "/w", approvalMode: "allow-all", thinkingLevel: null, archived: false, source: null, forkedFrom: null, replayOf: null, state: "idle", lastActiveAt: 0, createdAt: 0 };
    render(() =>
      <TestRouter>
        <DetailsPanel session={session} taskState="idle" onClose={() => undefined} />
      </TestRouter>,
    );
    expect(await screen.findByRole("link", { name: "http://localhost:5173/" })).toHaveAttribute("href", "http://localhost:5173/");
    expect(screen.getByText("Start the dev server")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Kill p1" }));
    expect(await screen.findByRole("button", { name: "Remove p1" })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "http://localhost:5173/" })).toBeNull();
    expect(calls.some((c) => c.method === "POST" && c.path === "/api/sessions/s1/processes/p1/kill")).toBe(true);
  });
});
