/**
 * An open session: header (title, locked model and workspace, approval mode and thinking
 * level, the details toggle), the details panel (processes, trace), the stream, pending
 * steering/follow-ups with recall, and the composer.
 *
 * The stream state comes from the SessionController (history + live SSE); this component
 * only turns user actions into API calls: send (a task, or a goal: send-plan.ts decides),
 * steer, queue, stop, approve, retry now, compact, recall, fork (then open the fork). After
 * an `auth` error the composer is locked until the server says the credentials changed (or
 * the user says they fixed them). The header's goal chip shows while a goal runs.
 */
import { useEffect, useMemo, useState } from "react";
import { Link, useNavigate } from "react-router";
import { listInstalledSkills } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import { findEntry } from "../../api/models";
import { abortTask, compactSession, decide, forkSession, getSession, patchSession, postTask, recallFollowUp, recallSteer, retryNow, steer } from "../../api/sessions";
import type { InstalledSkill, SessionSummary } from "../../api/types";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { useProject } from "../../state/project-store";
import { useSessionList } from "../../state/session-list-store";
import { fromInputItem } from "./attachments";
import { Composer, EMPTY_DRAFT, type Draft, type SendKind } from "./Composer";
import { DetailsPanel } from "./DetailsPanel";
import { PendingPanel } from "./PendingPanel";
import { SessionHeader } from "./SessionHeader";
import { planSend } from "./send-plan";
import { slashItems } from "./slash-commands";
import { StreamList, type StreamActions } from "./StreamList";
import { useSessionController } from "./use-session-controller";

export function SessionView({ sessionId }: { sessionId: string }) {
  const { controller, state } = useSessionController(sessionId);
  const navigate = useNavigate();
  const models = useProject((s) => s.models);
  const [info, setInfo] = useState<SessionSummary | undefined>(undefined);
  const [skills, setSkills] = useState<InstalledSkill[]>([]);
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [notice, setNotice] = useState<{ tone: "info" | "error"; text: string } | undefined>(undefined);
  const [sending, setSending] = useState(false);
  const [details, setDetails] = useState(false);

  useEffect(() => {
    let live = true;
    setInfo(undefined);
    setDraft(EMPTY_DRAFT);
    setNotice(undefined);
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
    return () => {
      live = false;
    };
  }, [sessionId]);

  useEffect(() => {
    if (state.title !== undefined) {
      setInfo((i) => (i === undefined ? i : { ...i, title: state.title ?? null }));
      useSessionList.getState().patch(sessionId, { title: state.title });
    }
  }, [state.title, sessionId]);

  const running = state.taskState !== "idle";
  const slash = useMemo(() => slashItems(skills), [skills]);
  const pricing = findEntry(models, info?.provider, info?.modelId)?.pricing;
  const locked = state.authLocked ? "The model rejected its credentials. Update the API key on the Models page to continue." : undefined;

  const actions: StreamActions = useMemo(
    () => ({
      async decide(toolCallId, decision) {
        await decide(sessionId, toolCallId, decision);
        controller?.dropApproval(toolCallId);
      },
      async retryNow() {
        await retryNow(sessionId);
      },
      async giveUp() {
        await abortTask(sessionId);
      },
      async fork() {
        const forked = await forkSession(sessionId);
        useSessionList.getState().upsert(forked);
        navigate(`/chat/${encodeURIComponent(forked.id)}`);
      },
    }),
    [sessionId, controller, navigate],
  );

  const restore = (d: Draft, e: unknown) => {
    setDraft(d);
    setNotice({ tone: "error", text: errorText(e) });
  };

  const send = async (kind: SendKind) => {
    const sent = draft;
    const plan = planSend(sent, slash);
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

  if (state.error !== undefined && state.items.length === 0) {
    return (
      <div className="p-6">
        <Notice tone="error">{state.error}</Notice>
        <Link to="/chat" className="mt-3 inline-block text-sm text-blue-600 underline">
          Start a new chat
        </Link>
      </div>
    );
  }

  return (
    <div className="flex h-full min-h-0 flex-col">
      <SessionHeader
        session={info}
        title={state.title ?? info?.title ?? undefined}
        connection={state.connection}
        running={running}
        goal={running && state.goalRunning && state.goal?.status === "active" ? state.goal : undefined}
        details={details}
        onDetails={() => setDetails((d) => !d)}
        onPatch={async (patch) => {
          try {
            await patchSession(sessionId, patch);
            setInfo((i) => (i === undefined ? i : { ...i, ...patch }));
          } catch (e) {
            setNotice({ tone: "error", text: errorText(e) });
          }
        }}
      />
      {details && info !== undefined && <DetailsPanel session={info} taskState={state.taskState} onClose={() => setDetails(false)} />}
      {state.loading && state.items.length === 0 ? (
        <div className="flex flex-1 items-center justify-center">
          <Spinner label="Loading the conversation" />
        </div>
      ) : (
        <StreamList
          key={sessionId}
          items={state.items}
          approvals={state.approvals}
          running={running}
          pricing={pricing}
          actions={actions}
          hasOlder={state.hasOlder}
          loadingOlder={state.loadingOlder}
          onLoadOlder={() => void controller?.loadOlder()}
        />
      )}
      <div className="border-t border-slate-200 bg-white px-3 py-2 sm:px-6 dark:border-slate-800 dark:bg-slate-950">
        <div className="mx-auto flex max-w-3xl flex-col gap-2">
          {state.authLocked && (
            <Notice tone="error">
              <p>
                <strong>Input is locked:</strong> {state.authMessage}
              </p>
              <p className="mt-1">
                Fix the key on the{" "}
                <Link to="/models" className="underline">
                  Models page
                </Link>
                ; the composer unlocks as soon as the model's credentials change.{" "}
                <button type="button" className="underline" onClick={() => controller?.unlockAuth()}>
                  I fixed it, unlock
                </button>
              </p>
            </Notice>
          )}
          {state.taskError !== undefined && <Notice tone="error">The task failed: {state.taskError}</Notice>}
          {notice !== undefined && <Notice tone={notice.tone}>{notice.text}</Notice>}
          <PendingPanel steering={state.steering} followUps={state.followUps} onRecall={(kind, id) => void recall(kind, id)} />
          <Composer
            draft={draft}
            onDraft={setDraft}
            onSend={(k) => void send(k)}
            onStop={() => void abortTask(sessionId).catch((e: unknown) => setNotice({ tone: "error", text: errorText(e) }))}
            running={running}
            busy={sending}
            locked={locked}
            slash={slash}
          />
          <p className="text-xs text-slate-500" aria-live="polite">
            {state.taskState === "compacting" ? "Compacting the context…" : running ? "The agent is working…" : ""}
          </p>
        </div>
      </div>
    </div>
  );
}
