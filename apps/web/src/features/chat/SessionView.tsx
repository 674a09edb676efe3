/**
 * An open session: header (title, locked model and workspace, approval mode and thinking
 * level, the details toggle), the details panel (processes, trace), the stream, pending
 * steering/follow-ups with recall, and the composer.
 *
 * The stream state comes from the SessionController (history + live SSE); this component
 * only turns user actions into API calls: send (a task, or a goal: send-plan.ts decides),
 * steer, queue, stop, approve, retry now, compact, recall, fork (then open the fork). After
 * an `auth` error the composer is locked until the server says the credentials changed (or
 * the user says they fixed them). The header's goal chip shows while a goal runs; its
 * command status follows the session's network allowance as the session list last read it.
 */
import { createEffect, createMemo, createSignal, on, onCleanup, Show } from "solid-js";
import { A, useNavigate } from "@solidjs/router";
import { listInstalledSkills } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import { findEntry } from "../../api/models";
import { abortTask, compactSession, decide, forkSession, getSession, patchSession, postTask, recallFollowUp, recallSteer, retryNow, steer } from "../../api/sessions";
import type { InstalledSkill, SessionSummary } from "../../api/types";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { project } from "../../state/project-store";
import { patchSession as patchListedSession, sessionLabel, sessionList, upsertSession } from "../../state/session-list-store";
import { fromInputItem } from "./attachments";
import { Composer, EMPTY_DRAFT, type Draft, type SendKind } from "./Composer";
import { createSessionController } from "./create-session-controller";
import { DetailsPanel } from "./DetailsPanel";
import { PendingPanel } from "./PendingPanel";
import { SessionHeader } from "./SessionHeader";
import { planSend } from "./send-plan";
import { slashItems } from "./slash-commands";
import { StreamList, type StreamActions } from "./StreamList";

/** The header's name for a loaded session: the same as the sidebar's (never "New chat" for an untitled one). */
function titleOf(info: SessionSummary | undefined): string | undefined {
  return info === undefined ? undefined : sessionLabel(info);
}

export function SessionView(props: { sessionId: string }) {
  const sessionId = props.sessionId;
  const controller = createSessionController(sessionId);
  const state = controller.view;
  const navigate = useNavigate();
  const [info, setInfo] = createSignal<SessionSummary | undefined>(undefined);
  const [skills, setSkills] = createSignal<InstalledSkill[]>([]);
  const [draft, setDraft] = createSignal<Draft>(EMPTY_DRAFT);
  const [notice, setNotice] = createSignal<{ tone: "info" | "error"; text: string } | undefined>(undefined);
  const [sending, setSending] = createSignal(false);
  const [details, setDetails] = createSignal(false);

  let live = true;
  onCleanup(() => (live = false));
  getSession(sessionId).then(
    (s) => {
      if (!live || s === undefined) return;
      setInfo(s);
      listInstalledSkills(s.projectId, s.agentId).then(
        (list) => live && setSkills(list),
        () => undefined,
      );
    },
    (e: unknown) => live && setNotice({ tone: "error", text: errorText(e) }),
  );

  createEffect(
    on(
      () => state.title,
      (title) => {
        if (title === undefined) return;
        setInfo((i) => (i === undefined ? i : { ...i, title }));
        patchListedSession(sessionId, { title });
      },
    ),
  );

  // The network allowance someone else changed reaches the header too: the user stream's
  // session_updated re-reads the session into the list, and the header follows the list.
  createEffect(
    on(
      () => sessionList.sessions.find((s) => s.id === sessionId)?.sandboxNetwork,
      (allowed) => {
        if (allowed !== undefined) setInfo((i) => (i === undefined || i.sandboxNetwork === allowed ? i : { ...i, sandboxNetwork: allowed }));
      },
      { defer: true },
    ),
  );

  const running = () => state.taskState !== "idle";
  const slash = createMemo(() => slashItems(skills()));
  const pricing = () => findEntry(project.models, info()?.provider, info()?.modelId)?.pricing;
  // A colleague's session is read-only to a member: the server refuses tasks from anyone but its creator, an owner or the admin.
  const mayAct = () => info()?.commands?.mayControl !== false;
  const locked = () =>
    state.authLocked
      ? "The model rejected its credentials. Update the API key on the Models page to continue."
      : mayAct()
        ? undefined
        : "Only the session's creator, a project owner or the admin can run tasks here. You can read it, or fork it to continue in your own session.";

  const actions: StreamActions = {
    async decide(toolCallId, decision) {
      await decide(sessionId, toolCallId, decision);
      controller.dropApproval(toolCallId);
    },
    async retryNow() {
      await retryNow(sessionId);
    },
    async giveUp() {
      await abortTask(sessionId);
    },
    async fork() {
      const forked = await forkSession(sessionId);
      upsertSession(forked);
      navigate(`/chat/${encodeURIComponent(forked.id)}`);
    },
  };

  const restore = (d: Draft, e: unknown) => {
    setDraft(d);
    setNotice({ tone: "error", text: errorText(e) });
  };

  const send = async (kind: SendKind) => {
    const sent = draft();
    const plan = planSend(sent, slash());
    setNotice(undefined);
    if (plan.kind === "error") {
      setNotice({ tone: "error", text: plan.message });
      return;
    }
    if (plan.kind === "model") {
      setNotice({ tone: "info", text: "The model is fixed for a session once it starts. Start a new chat to use another model." });
      return;
    }
    setSending(true);
    setDraft(EMPTY_DRAFT);
    try {
      if (plan.kind === "compact") {
        await compactSession(sessionId);
        return;
      }
      const { items, goal } = plan;
      const text = items.flatMap((i) => (i.type === "text" ? [i.text] : [])).join("\n");
      const options = goal === undefined ? {} : { goal };
      if (kind === "steer" && sent.attachments.length === 0 && goal === undefined) {
        try {
          await steer(sessionId, text);
        } catch (e) {
          if (e instanceof ApiError && e.code === "not_running") await postTask(sessionId, items);
          else throw e;
        }
      } else if (kind === "queue" || kind === "steer") {
        await postTask(sessionId, items, { ...options, queueIfBusy: true });
      } else {
        await postTask(sessionId, items, options);
      }
    } catch (e) {
      restore(sent, e);
    } finally {
      setSending(false);
    }
  };

  const recall = async (kind: "steer" | "followUp", id: string) => {
    try {
      if (kind === "steer") {
        const note = state.steering.find((s) => s.id === id);
        const text = (await recallSteer(sessionId, id)) ?? note?.text ?? "";
        setDraft((d) => ({ ...d, text: d.text === "" ? text : `${d.text}\n${text}` }));
      } else {
        const input = await recallFollowUp(sessionId, id);
        const text = input.flatMap((i) => (i.type === "text" ? [i.text] : [])).join("\n");
        const attachments = input.flatMap((i) => fromInputItem(i) ?? []);
        setDraft((d) => ({ ...d, text: d.text === "" ? text : `${d.text}\n${text}`, attachments: [...d.attachments, ...attachments] }));
      }
    } catch (e) {
      const delivered = e instanceof ApiError && e.code === "already_delivered";
      setNotice({ tone: "error", text: delivered ? "Too late: the agent has already read this steering." : errorText(e) });
    }
  };

  return (
    <Show
      when={state.error === undefined || state.items.length > 0}
      fallback={
        <div class="p-6">
          <Notice tone="error">{state.error}</Notice>
          <A href="/chat" class="mt-3 inline-block text-sm text-blue-600 underline">
            Start a new chat
          </A>
        </div>
      }
    >
      <div class="flex h-full min-h-0 flex-col">
        <SessionHeader
          session={info()}
          title={state.title ?? titleOf(info())}
          connection={state.connection}
          running={running()}
          goal={running() && state.goalRunning && state.goal?.status === "active" ? state.goal : undefined}
          details={details()}
          onDetails={() => setDetails((d) => !d)}
          onPatch={async (patch) => {
            try {
              await patchSession(sessionId, patch);
              setInfo((i) => (i === undefined ? i : { ...i, ...patch }));
              if (patch.sandboxNetwork !== undefined) patchListedSession(sessionId, { sandboxNetwork: patch.sandboxNetwork });
            } catch (e) {
              setNotice({ tone: "error", text: errorText(e) });
            }
          }}
        />
        <Show when={details() && info()}>{(session) => <DetailsPanel session={session()} taskState={state.taskState} onClose={() => setDetails(false)} />}</Show>
        <Show
          when={!state.loading || state.items.length > 0}
          fallback={
            <div class="flex flex-1 items-center justify-center">
              <Spinner label="Loading the conversation" />
            </div>
          }
        >
          <Show
            when={state.items.length > 0 || state.approvals.length > 0 || running()}
            fallback={<p class="flex flex-1 items-center justify-center text-sm text-slate-500">No messages yet. Write below to start.</p>}
          >
            <StreamList
              items={state.items}
              approvals={state.approvals}
              running={running()}
              pricing={pricing()}
              actions={actions}
              hasOlder={state.hasOlder}
              loadingOlder={state.loadingOlder}
              onLoadOlder={() => void controller.loadOlder()}
            />
          </Show>
        </Show>
        <div class="border-t border-slate-200 bg-white px-3 py-2 sm:px-6 dark:border-slate-800 dark:bg-slate-950">
          <div class="mx-auto flex max-w-3xl flex-col gap-2">
            <Show when={state.authLocked}>
              <Notice tone="error">
                <p>
                  <strong>Input is locked:</strong> {state.authMessage}
                </p>
                <p class="mt-1">
                  Fix the key on the{" "}
                  <A href="/models" class="underline">
                    Models page
                  </A>
                  ; the composer unlocks as soon as the model's credentials change.{" "}
                  <button type="button" class="underline" onClick={() => controller.unlockAuth()}>
                    I fixed it, unlock
                  </button>
                </p>
              </Notice>
            </Show>
            <Show when={state.taskError}>{(message) => <Notice tone="error">The task failed: {message()}</Notice>}</Show>
            <Show when={notice()}>{(n) => <Notice tone={n().tone}>{n().text}</Notice>}</Show>
            <PendingPanel steering={state.steering} followUps={state.followUps} onRecall={(kind, id) => void recall(kind, id)} />
            <Composer
              draft={draft()}
              onDraft={setDraft}
              onSend={(k) => void send(k)}
              onStop={() => void abortTask(sessionId).catch((e: unknown) => setNotice({ tone: "error", text: errorText(e) }))}
              running={running()}
              busy={sending()}
              locked={locked()}
              slash={slash()}
            />
            <p class="text-xs text-slate-500" aria-live="polite">
              {state.taskState === "compacting" ? "Compacting the context…" : running() ? "The agent is working…" : ""}
            </p>
          </div>
        </div>
      </div>
    </Show>
  );
}
