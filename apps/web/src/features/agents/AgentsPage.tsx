/**
 * The Agents page (`/agents/:agentId?`): pick an agent (or create one), then its state in
 * tabs: Overview (snapshots, kernel update, restore defaults), the runtime configuration
 * and system prompt (`system_config.yaml`), `AGENTS.md`, Memory, Tools (builtin table and
 * MCP servers), the vault, and skills. Text files are edited as text and saved as written
 * (the server validates them and keeps comments). Tabs that change the config on the
 * server (kernel update, placeholders, reset, import) hand back the new text, which
 * replaces both the saved and the edited copy.
 */
import { useEffect, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { getAgentConfig, putAgentConfig } from "../../api/agents";
import { errorText } from "../../api/http";
import { createAgent } from "../../api/projects";
import type { AgentConfig } from "../../api/types";
import { Page } from "../../components/layout/Page";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { Tabs } from "../../components/ui/Tabs";
import { canEditProject, useProject } from "../../state/project-store";
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

export default function AgentsPage() {
  const { agentId: routeAgent } = useParams();
  const navigate = useNavigate();
  const { projectId, projects, agents, reloadAgents } = useProject();
  const editable = canEditProject(projects, projectId);
  const agentId = routeAgent ?? agents.find((a) => a.agentId === "default_agent")?.agentId ?? agents[0]?.agentId;
  const [tab, setTab] = useState<Tab>("overview");
  const [saved, setSaved] = useState<AgentConfig | undefined>(undefined);
  const [draft, setDraft] = useState<AgentConfig | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [newAgent, setNewAgent] = useState("");

  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    if (projectId === undefined || agentId === undefined) return;
    let live = true;
    setSaved(undefined);
    setDraft(undefined);
    getAgentConfig(projectId, agentId).then(
      (c) => {
        if (!live) return;
        setSaved(c);
        setDraft(c);
      },
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, agentId, reloads]);

  if (projectId === undefined || agentId === undefined) {
    return (
      <Page title="Agents">
        <Spinner label="Loading agents" />
      </Page>
    );
  }

  const saveConfig = async (patch: Partial<AgentConfig>) => {
    const next = await putAgentConfig(projectId, agentId, patch);
    setSaved(next);
    setDraft((d) => (d === undefined ? next : { ...d, ...patch }));
  };

  const create = async () => {
    setError(undefined);
    try {
      await createAgent(projectId, newAgent.trim());
      await reloadAgents();
      navigate(`/agents/${encodeURIComponent(newAgent.trim())}`);
      setNewAgent("");
    } catch (e) {
      setError(errorText(e));
    }
  };

  /** The server changed the files: take its text (or reload both when none is given). */
  const onConfig = (c?: Partial<AgentConfig>) => {
    if (c === undefined) {
      setReloads((n) => n + 1);
      return;
    }
    setSaved((s) => (s === undefined ? s : { ...s, ...c }));
    setDraft((d) => (d === undefined ? d : { ...d, ...c }));
  };
  const onSystemConfig = (systemConfig: string) => onConfig({ systemConfig });

  return (
    <Page title="Agents">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <SelectField label="Agent" value={agentId} onValue={(a) => navigate(`/agents/${encodeURIComponent(a)}`)} options={agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))} className="sm:w-64" />
        {editable && (
          <form
            className="flex items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              void create();
            }}
          >
            <TextField label="New agent id" value={newAgent} onChange={(e) => setNewAgent(e.target.value)} pattern="[a-z][a-z0-9_]{1,63}" />
            <Button type="submit" disabled={newAgent.trim() === ""}>
              Create
            </Button>
          </form>
        )}
      </div>
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {!editable && <Notice>Only the project owner can change agents; you can read their configuration.</Notice>}
      <Tabs label="Agent settings" tabs={TABS} value={tab} onChange={setTab}>
        {draft === undefined || saved === undefined ? (
          <Spinner label="Loading the agent" />
        ) : tab === "overview" ? (
          <OverviewPanel projectId={projectId} agentId={agentId} readOnly={!editable} onConfig={onConfig} />
        ) : tab === "runtime" ? (
          <TextFileEditor
            label="system_config.yaml"
            hint="The system prompt, model settings, compaction, memory, vault, skills, schedules and tools. Comments are kept."
            value={draft.systemConfig}
            saved={saved.systemConfig}
            onChange={(v) => setDraft({ ...draft, systemConfig: v })}
            onSave={() => saveConfig({ systemConfig: draft.systemConfig })}
            readOnly={!editable}
          />
        ) : tab === "agents-md" ? (
          <TextFileEditor
            label="AGENTS.md"
            hint="Standing instructions added to every session of this agent."
            value={draft.agentsMd}
            saved={saved.agentsMd}
            onChange={(v) => setDraft({ ...draft, agentsMd: v })}
            onSave={() => saveConfig({ agentsMd: draft.agentsMd })}
            readOnly={!editable}
          />
        ) : tab === "memory" ? (
          <MemoryPanel projectId={projectId} agentId={agentId} readOnly={!editable} systemConfig={saved.systemConfig} onConfig={onSystemConfig} />
        ) : tab === "tools" ? (
          <div className="flex flex-col gap-4">
            <ToolsPanel projectId={projectId} agentId={agentId} yaml={draft.systemConfig} savedYaml={saved.systemConfig} onYaml={(v) => setDraft({ ...draft, systemConfig: v })} readOnly={!editable} />
            {draft.systemConfig !== saved.systemConfig && editable && (
              <div className="flex items-center gap-2">
                <Notice tone="warning">The configuration has unsaved changes.</Notice>
                <Button variant="primary" onClick={() => void saveConfig({ systemConfig: draft.systemConfig }).catch((e: unknown) => setError(errorText(e)))}>
                  Save configuration
                </Button>
              </div>
            )}
          </div>
        ) : tab === "vault" ? (
          <VaultPanel projectId={projectId} agentId={agentId} readOnly={!editable} systemConfig={saved.systemConfig} onConfig={onSystemConfig} />
        ) : (
          <SkillsPanel projectId={projectId} agentId={agentId} readOnly={!editable} />
        )}
      </Tabs>
    </Page>
  );
}
