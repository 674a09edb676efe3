/**
 * The session's header: title, agent, the model and workspace (locked: they were fixed when
 * the session was created), and the two settings that may change mid-session, approval mode
 * and thinking level. Shows the stream's connection state when it is not open, the running
 * goal's chip (objective, round, tokens used of the budget) while one runs, how the session's
 * commands run (CommandsStatus), and the button that opens the details panel (processes, trace).
 */
import { For, Show } from "solid-js";
import { APPROVAL_MODES, THINKING_LEVELS, type ApprovalMode, type SessionSummary, type ThinkingLevel } from "../../api/types";
import { CommandsStatus } from "./CommandsStatus";
import type { SseStatus } from "../../api/sse";
import { workspaceLabel } from "../../state/session-list-store";
import { Icon } from "../../components/ui/Icon";
import type { GoalView } from "../../lib/stream/goal";
import { GoalChip } from "./rows/GoalRows";

export interface HeaderPatch {
  approvalMode?: ApprovalMode;
  thinkingLevel?: ThinkingLevel;
  sandboxNetwork?: boolean;
}

const SELECT = "rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs dark:border-slate-700 dark:bg-slate-900";

export interface SessionHeaderProps {
  session: SessionSummary | undefined;
  title: string | undefined;
  connection: SseStatus;
  running: boolean;
  goal?: GoalView | undefined;
  details: boolean;
  onDetails(): void;
  onPatch(p: HeaderPatch): Promise<void>;
}

export function SessionHeader(props: SessionHeaderProps) {
  return (
    <header class="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-200 px-3 py-2 sm:px-6 dark:border-slate-800">
      <h1 class="min-w-0 flex-1 truncate text-sm font-semibold">
        {props.title ?? "New chat"}
        <Show when={props.running}>
          <span class="ml-2 inline-block h-2 w-2 animate-pulse rounded-full bg-blue-500" aria-label="running" />
        </Show>
      </h1>
      <Show when={props.goal}>
        {(goal) => (
          <div class="order-last flex min-w-0 basis-full">
            <GoalChip goal={goal()} />
          </div>
        )}
      </Show>
      <Show when={props.connection !== "open"}>
        <span role="status" class="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800 dark:bg-amber-900 dark:text-amber-100">
          {props.connection === "closed" ? "Disconnected" : props.connection === "connecting" ? "Connecting…" : "Reconnecting…"}
        </span>
      </Show>
      <Show when={props.session}>
        {(session) => (
          <div class="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
            <span title="Agent">{session().agentId}</span>
            <span title="The model is fixed for this session" class="rounded bg-slate-100 px-1.5 py-0.5 dark:bg-slate-800">
              <Icon name="lock" class="mr-1 h-3 w-3 align-[-1px]" />
              {session().provider}/{session().modelId}
            </span>
            <span title={`Workspace (fixed): ${session().workspace ?? ""}`} class="max-w-40 truncate rounded bg-slate-100 px-1.5 py-0.5 dark:bg-slate-800">
              <Icon name="lock" class="mr-1 h-3 w-3 align-[-1px]" />
              {workspaceLabel(session().workspace)}
            </span>
            <label class="flex items-center gap-1">
              <span>Approval</span>
              <select
                class={SELECT}
                aria-label="Session approval mode"
                value={session().approvalMode}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  const mode = APPROVAL_MODES.find((m) => m === value);
                  if (mode !== undefined) void props.onPatch({ approvalMode: mode });
                }}
              >
                <For each={APPROVAL_MODES}>{(m) => <option value={m} selected={m === session().approvalMode}>{m}</option>}</For>
              </select>
            </label>
            <label class="flex items-center gap-1">
              <span>Thinking</span>
              <select
                class={SELECT}
                aria-label="Session thinking level"
                value={session().thinkingLevel ?? ""}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  const level = THINKING_LEVELS.find((l) => l === value);
                  if (level !== undefined) void props.onPatch({ thinkingLevel: level });
                }}
              >
                <Show when={session().thinkingLevel === null}>
                  <option value="">default</option>
                </Show>
                <For each={THINKING_LEVELS}>{(l) => <option value={l} selected={l === session().thinkingLevel}>{l}</option>}</For>
              </select>
            </label>
            <Show when={session().commands}>
              {(commands) => <CommandsStatus commands={commands()} network={session().sandboxNetwork === true} onNetwork={(allowed) => props.onPatch({ sandboxNetwork: allowed })} />}
            </Show>
            <button type="button" aria-expanded={props.details} onClick={() => props.onDetails()} class="rounded border border-slate-300 px-1.5 py-0.5 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800">
              Details
            </button>
          </div>
        )}
      </Show>
    </header>
  );
}
