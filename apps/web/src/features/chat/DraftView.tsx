/**
 * A new chat before its first message: pick the agent, the workspace (server folder
 * browser), the model, the thinking level and the approval mode, then write. The session
 * is created on the first send (`POST A/sessions`), the task posted, and the page moves to
 * the session; from then on model and workspace are locked. Initial choices come from the
 * project's chat defaults and default model; the thinking level starts at the agent's own
 * (`model.thinking_level`), and picking another writes it back to the agent's config
 * (SPEC §10; the server edits the YAML in place, comments kept; members, who may not edit
 * the agent, just use the level for their session). The first message may already be a
 * goal (the composer's goal panel or `/goal`; send-plan.ts decides).
 */
import { createEffect, createMemo, createSignal, on, onCleanup, Show } from "solid-js";
import { useNavigate } from "@solidjs/router";
import { getAgentThinkingLevel, listInstalledSkills, setAgentThinkingLevel } from "../../api/agents";
import { errorText } from "../../api/http";
import { getChatDefaults } from "../../api/projects";
import { createSession, patchSession, postTask } from "../../api/sessions";
import { APPROVAL_MODES, THINKING_LEVELS, type ApprovalMode, type InstalledSkill, type ThinkingLevel } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { canEditProject, project } from "../../state/project-store";
import { upsertSession } from "../../state/session-list-store";
import { Composer, EMPTY_DRAFT, type Draft } from "./Composer";
import { planSend } from "./send-plan";
import { slashItems } from "./slash-commands";
import { WorkspacePicker } from "./WorkspacePicker";

const refKey = (provider: string, modelId: string) => `${provider}\u0000${modelId}`;

export function DraftView() {
  const navigate = useNavigate();
  const [agentId, setAgentId] = createSignal("");
  const [workspace, setWorkspace] = createSignal("");
  const [model, setModel] = createSignal("");
  const [thinking, setThinking] = createSignal<ThinkingLevel>("medium");
  // Until the project's default arrives, a new session would ask before writes and commands (the server's default).
  const [approval, setApproval] = createSignal<ApprovalMode>("read-only");
  let approvalChosen = false;
  const [draft, setDraft] = createSignal<Draft>(EMPTY_DRAFT);
  const [picking, setPicking] = createSignal(false);
  const [skills, setSkills] = createSignal<InstalledSkill[]>([]);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [sending, setSending] = createSignal(false);
  let modelBox!: HTMLDivElement;

  createEffect(
    on(
      () => project.projectId,
      (projectId) => {
        if (projectId === undefined) return;
        let live = true;
        getChatDefaults(projectId).then(
          (d) => {
            if (!live) return;
            if (d.agentId !== undefined) setAgentId(d.agentId);
            if (d.workspace !== undefined) setWorkspace(d.workspace);
            // The project's default never overrides a mode the person already picked.
            if (d.approvalMode !== undefined && !approvalChosen) setApproval(d.approvalMode);
          },
          () => undefined,
        );
        onCleanup(() => (live = false));
      },
    ),
  );

  createEffect(() => {
    const agents = project.agents;
    const current = agentId();
    if (current === "" || !agents.some((a) => a.agentId === current)) {
      const first = agents.find((a) => a.agentId === "default_agent") ?? agents[0];
      if (first !== undefined) setAgentId(first.agentId);
    }
  });

  createEffect(() => {
    const models = project.models;
    if (models === undefined || model() !== "") return;
    const d = models.defaultModel ?? models.models[0];
    if (d !== undefined && d !== null) setModel(refKey(d.provider, d.modelId));
  });

  createEffect(
    on([() => project.projectId, agentId], ([projectId, agent]) => {
      if (projectId === undefined || agent === "") return;
      let live = true;
      getAgentThinkingLevel(projectId, agent).then(
        (level) => {
          if (live && level !== undefined) setThinking(level);
        },
        () => undefined,
      );
      listInstalledSkills(projectId, agent).then(
        (list) => live && setSkills(list),
        () => live && setSkills([]),
      );
      onCleanup(() => (live = false));
    }),
  );

  const pickThinking = (level: ThinkingLevel) => {
    setThinking(level);
    const projectId = project.projectId;
    if (projectId === undefined || agentId() === "" || !canEditProject(project.projects, projectId)) return;
    setAgentThinkingLevel(projectId, agentId(), level).catch((e: unknown) => setError(`The thinking level was not saved to the agent: ${errorText(e)}`));
  };

  const modelOptions = createMemo(() => (project.models?.models ?? []).map((m) => ({ value: refKey(m.provider, m.modelId), label: `${m.displayName ?? m.modelId} (${m.provider})` })));
  const slash = createMemo(() => slashItems(skills()));
  const chosen = () => project.models?.models.find((m) => refKey(m.provider, m.modelId) === model());

  const send = async () => {
    const projectId = project.projectId;
    if (projectId === undefined) return;
    const plan = planSend(draft(), slash());
    setError(undefined);
    if (plan.kind === "model") {
      const hit = modelOptions().find((o) => plan.arg !== "" && o.label.toLowerCase().includes(plan.arg.toLowerCase()));
      if (hit !== undefined) setModel(hit.value);
      setDraft(EMPTY_DRAFT);
      modelBox.querySelector("select")?.focus();
      return;
    }
    if (plan.kind === "compact") {
      setError("There is nothing to compact before the first message.");
      return;
    }
    if (plan.kind === "error") {
      setError(plan.message);
      return;
    }
    const picked = chosen();
    if (picked === undefined) {
      setError("Add a model on the Models page first.");
      return;
    }
    const { items, goal } = plan;
    setSending(true);
    try {
      const input: Parameters<typeof createSession>[2] = { provider: picked.provider, modelId: picked.modelId, approvalMode: approval() };
      if (workspace().trim() !== "") input.workspace = workspace().trim();
      const session = await createSession(projectId, agentId(), input);
      await patchSession(session.id, { thinkingLevel: thinking() }).catch(() => undefined);
      await postTask(session.id, items, { thinkingLevel: thinking(), ...(goal === undefined ? {} : { goal }) });
      upsertSession({ ...session, state: "running", thinkingLevel: thinking(), lastActiveAt: Date.now() });
      navigate(`/chat/${encodeURIComponent(session.id)}`);
    } catch (e) {
      setError(errorText(e));
      setSending(false);
    }
  };

  return (
    <div class="flex h-full flex-col items-center justify-center overflow-auto px-3 py-6">
      <div class="flex w-full max-w-3xl flex-col gap-4">
        <h1 class="text-center text-xl font-semibold">What should the agent do?</h1>
        <div class="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
          <SelectField label="Agent" value={agentId()} onValue={setAgentId} options={project.agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))} />
          <div ref={modelBox}>
            <SelectField label="Model" value={model()} onValue={setModel} options={modelOptions()} hint={modelOptions().length === 0 ? "No models yet: add one on the Models page." : undefined} />
          </div>
          <SelectField label="Thinking level" value={thinking()} onValue={pickThinking} options={THINKING_LEVELS.map((l) => ({ value: l, label: l }))} />
          <SelectField
            label="Approval mode"
            value={approval()}
            onValue={(m) => {
              approvalChosen = true;
              setApproval(m);
            }}
            options={APPROVAL_MODES.map((m) => ({ value: m, label: m }))}
          />
          <div class="flex items-end gap-2 sm:col-span-2">
            <TextField class="flex-1" label="Workspace" placeholder="Empty: a temporary folder" value={workspace()} onValue={setWorkspace} />
            <Button onClick={() => setPicking(true)} disabled={project.projectId === undefined}>
              Browse…
            </Button>
          </div>
        </div>
        <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
        <Composer draft={draft()} onDraft={setDraft} onSend={() => void send()} running={false} busy={sending()} slash={slash()} />
      </div>
      <Show when={picking() && project.projectId}>
        {(projectId) => (
          <WorkspacePicker
            projectId={projectId()}
            start={workspace()}
            onClose={() => setPicking(false)}
            onPick={(p) => {
              setWorkspace(p);
              setPicking(false);
            }}
          />
        )}
      </Show>
    </div>
  );
}
