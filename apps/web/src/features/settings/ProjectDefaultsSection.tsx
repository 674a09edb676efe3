/**
 * The current project's approval mode for new web sessions (`default_chat.approval_mode`):
 * what a session created without choosing one starts with. The server's own default is
 * `read-only` (writes and commands ask first). Owners and the admin change it; members see it.
 * The chat-defaults PUT replaces every default, so the others are read first and sent back.
 */
import { createEffect, createSignal, on, onCleanup, Show } from "solid-js";
import { errorText } from "../../api/http";
import { getChatDefaults, putChatDefaults, type ChatDefaults } from "../../api/projects";
import { APPROVAL_MODES, type ApprovalMode } from "../../api/types";
import { SelectField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { canEditProject, project } from "../../state/project-store";

const EXPLAINED: Record<ApprovalMode, string> = {
  "read-only": "read-only: reading tools run, writes and commands ask first",
  "always-ask": "always-ask: every tool asks first",
  "allow-all": "allow-all: every tool runs without asking",
  "deny-all": "deny-all: every tool call is refused",
};

export function ProjectDefaultsSection() {
  const [defaults, setDefaults] = createSignal<ChatDefaults | undefined>(undefined);
  const [status, setStatus] = createSignal<{ tone: "success" | "error"; text: string } | undefined>(undefined);
  const editable = () => canEditProject(project.projects, project.projectId);

  createEffect(
    on(
      () => project.projectId,
      (projectId) => {
        setDefaults(undefined);
        setStatus(undefined);
        if (projectId === undefined) return;
        let live = true;
        getChatDefaults(projectId).then(
          (d) => live && setDefaults(d),
          (e: unknown) => live && setStatus({ tone: "error", text: errorText(e) }),
        );
        onCleanup(() => (live = false));
      },
    ),
  );

  const choose = async (mode: ApprovalMode) => {
    const projectId = project.projectId;
    const current = defaults();
    if (projectId === undefined || current === undefined) return;
    const next = { ...current, approvalMode: mode };
    try {
      await putChatDefaults(projectId, next);
      setDefaults(next);
      setStatus({ tone: "success", text: "Saved: new sessions of this project start with this mode." });
    } catch (e) {
      setStatus({ tone: "error", text: errorText(e) });
    }
  };

  return (
    <section aria-labelledby="set-project" class="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
      <h2 id="set-project" class="mb-3 font-semibold">
        Project {project.projectId ?? ""}
      </h2>
      <Show when={defaults()}>
        {(d) => (
          <SelectField
            label="Approval mode of new sessions"
            value={d().approvalMode ?? "read-only"}
            onValue={(m) => void choose(m)}
            disabled={!editable()}
            options={APPROVAL_MODES.map((m) => ({ value: m, label: EXPLAINED[m] }))}
            hint={editable() ? "Applies to sessions created from now on; existing sessions keep theirs." : "Only the project's owner or the admin can change it."}
          />
        )}
      </Show>
      <Show when={status()}>{(s) => <Notice tone={s().tone} class="mt-3">{s().text}</Notice>}</Show>
    </section>
  );
}
