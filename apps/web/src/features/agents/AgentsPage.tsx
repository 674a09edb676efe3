/**
 * The Agents page (`/agents/:agentId?`): pick an agent (or create one), then its state in
 * tabs: Overview (snapshots, kernel update, restore defaults), the runtime configuration
 * and system prompt (`system_config.yaml`), `AGENTS.md`, Memory, Tools (builtin table and
 * MCP servers), the vault, and skills. Text files are edited as text and saved as written
 * (the server validates them and keeps comments). Tabs that change the config on the
 * server (kernel update, placeholders, reset, import) hand back the new text, which
 * replaces both the saved and the edited copy.
 */
import { createEffect, createSignal, Match, on, onCleanup, Show, Switch } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import { useNavigate, useParams } from "@solidjs/router";
import { getAgentConfig, putAgentConfig } from "../../api/agents";
import { errorText } from "../../api/http";
import { createAgent } from "../../api/projects";
import type { AgentConfig } from "../../api/types";
import { Page } from "../../components/layout/Page";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { LoadFailed } from "../../components/ui/LoadFailed";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { Tabs } from "../../components/ui/Tabs";
import { canEditProject, project, reloadAgents, retryProjectLoad } from "../../state/project-store";
import { MemoryPanel } from "./MemoryPanel";
import { OverviewPanel } from "./OverviewPanel";
import { SkillsPanel } from "./SkillsPanel";
import { TextFileEditor } from "./TextFileEditor";
import { ToolsPanel } from "./ToolsPanel";
import { VaultPanel } from "./VaultPanel";

type Tab = "overview" | "runtime" | "agents-md" | "memory" | "tools" | "vault" | "skills";
const TABS = [
  { id: "overview", label: "Overview" },
  { id: "runtime", label: "Prompt & runtime" },
  { id: "agents-md", label: "AGENTS.md" },
  { id: "memory", label: "Memory" },
  { id: "tools", label: "Tools & MCP" },
  { id: "vault", label: "Vault" },
  { id: "skills", label: "Skills" },
] as const;

interface Files {
  saved: AgentConfig | undefined;
  draft: AgentConfig | undefined;
}

export default function AgentsPage() {
  const params = useParams<{ agentId?: string }>();
  const navigate = useNavigate();
  const editable = () => canEditProject(project.projects, project.projectId);
  const agentId = () => params.agentId ?? project.agents.find((a) => a.agentId === "default_agent")?.agentId ?? project.agents[0]?.agentId;
  const [tab, setTab] = createSignal<Tab>("overview");
  const [files, setFiles] = createStore<Files>({ saved: undefined, draft: undefined });
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [newAgent, setNewAgent] = createSignal("");
  const [reloads, setReloads] = createSignal(0);

  createEffect(
    on([() => project.projectId, agentId, reloads], ([projectId, agent]) => {
      if (projectId === undefined || agent === undefined) return;
      let live = true;
      setFiles({ saved: undefined, draft: undefined });
      getAgentConfig(projectId, agent).then(
        (c) => {
          if (live) setFiles({ saved: { ...c }, draft: { ...c } });
        },
        (e: unknown) => live && setError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  /** The server changed the files: take its text (or reload both when none is given). */
  const onConfig = (c?: Partial<AgentConfig>) => {
    if (c === undefined) {
      setReloads((n) => n + 1);
      return;
    }
    if (files.saved !== undefined) setFiles("saved", c);
    if (files.draft !== undefined) setFiles("draft", c);
  };
  const onSystemConfig = (systemConfig: string) => onConfig({ systemConfig });

  return (
    <Show
      when={project.projectId !== undefined && agentId() !== undefined}
      fallback={
        <Page title="Agents">
          <Switch fallback={<Spinner label="Loading agents" />}>
            <Match when={project.error !== undefined && project.agents.length === 0}>
              <LoadFailed what="the agents" onRetry={retryProjectLoad} />
            </Match>
            <Match when={project.models !== undefined && project.agents.length === 0}>
              <Notice>This project has no agents yet.</Notice>
            </Match>
          </Switch>
        </Page>
      }
    >
      <AgentView />
    </Show>
  );

  function AgentView() {
    const projectId = () => project.projectId ?? "";
    const agent = () => agentId() ?? "";

    const saveConfig = async (patch: Partial<AgentConfig>) => {
      const next = await putAgentConfig(projectId(), agent(), patch);
      setFiles("saved", reconcile({ ...next }));
      if (files.draft === undefined) setFiles("draft", { ...next });
      else setFiles("draft", patch);
    };

    const create = async () => {
      setError(undefined);
      const id = newAgent().trim();
      try {
        await createAgent(projectId(), id);
        await reloadAgents();
        navigate(`/agents/${encodeURIComponent(id)}`);
        setNewAgent("");
      } catch (e) {
        setError(errorText(e));
      }
    };

    return (
      <Page title="Agents">
        <div class="flex flex-col gap-3 sm:flex-row sm:items-end">
          <SelectField label="Agent" value={agent()} onValue={(a) => navigate(`/agents/${encodeURIComponent(a)}`)} options={project.agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))} class="sm:w-64" />
          <Show when={editable()}>
            <form
              class="flex items-end gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                void create();
              }}
            >
              <TextField label="New agent id" value={newAgent()} onValue={setNewAgent} pattern="[a-z][a-z0-9_]{1,63}" />
              <Button type="submit" disabled={newAgent().trim() === ""}>
                Create
              </Button>
            </form>
          </Show>
        </div>
        <Show when={error()}>{(text) => <Notice tone="error">{text()}</Notice>}</Show>
        <Show when={!editable()}>
          <Notice>Only the project owner can change agents; you can read their configuration.</Notice>
        </Show>
        <Tabs label="Agent settings" tabs={TABS} value={tab()} onChange={setTab}>
          <Show when={files.draft !== undefined && files.saved !== undefined} fallback={<Spinner label="Loading the agent" />}>
            <Switch>
              <Match when={tab() === "overview"}>
                <OverviewPanel projectId={projectId()} agentId={agent()} readOnly={!editable()} onConfig={onConfig} />
              </Match>
              <Match when={tab() === "runtime"}>
                <TextFileEditor
                  label="system_config.yaml"
                  hint="The system prompt, model settings, compaction, memory, vault, skills, schedules and tools. Comments are kept."
                  value={files.draft?.systemConfig ?? ""}
                  saved={files.saved?.systemConfig ?? ""}
                  onChange={(v) => setFiles("draft", "systemConfig", v)}
                  onSave={() => saveConfig({ systemConfig: files.draft?.systemConfig ?? "" })}
                  readOnly={!editable()}
                />
              </Match>
              <Match when={tab() === "agents-md"}>
                <TextFileEditor
                  label="AGENTS.md"
                  hint="Standing instructions added to every session of this agent."
                  value={files.draft?.agentsMd ?? ""}
                  saved={files.saved?.agentsMd ?? ""}
                  onChange={(v) => setFiles("draft", "agentsMd", v)}
                  onSave={() => saveConfig({ agentsMd: files.draft?.agentsMd ?? "" })}
                  readOnly={!editable()}
                />
              </Match>
              <Match when={tab() === "memory"}>
                <MemoryPanel projectId={projectId()} agentId={agent()} readOnly={!editable()} systemConfig={files.saved?.systemConfig ?? ""} onConfig={onSystemConfig} />
              </Match>
              <Match when={tab() === "tools"}>
                <div class="flex flex-col gap-4">
                  <ToolsPanel
                    projectId={projectId()}
                    agentId={agent()}
                    yaml={files.draft?.systemConfig ?? ""}
                    savedYaml={files.saved?.systemConfig ?? ""}
                    onYaml={(v) => setFiles("draft", "systemConfig", v)}
                    readOnly={!editable()}
                  />
                  <Show when={files.draft?.systemConfig !== files.saved?.systemConfig && editable()}>
                    <div class="flex items-center gap-2">
                      <Notice tone="warning">The configuration has unsaved changes.</Notice>
                      <Button variant="primary" onClick={() => void saveConfig({ systemConfig: files.draft?.systemConfig ?? "" }).catch((e: unknown) => setError(errorText(e)))}>
                        Save configuration
                      </Button>
                    </div>
                  </Show>
                </div>
              </Match>
              <Match when={tab() === "vault"}>
                <VaultPanel projectId={projectId()} agentId={agent()} readOnly={!editable()} systemConfig={files.saved?.systemConfig ?? ""} onConfig={onSystemConfig} />
              </Match>
              <Match when={tab() === "skills"}>
                <SkillsPanel projectId={projectId()} agentId={agent()} readOnly={!editable()} />
              </Match>
            </Switch>
          </Show>
        </Tabs>
      </Page>
    );
  }
}
