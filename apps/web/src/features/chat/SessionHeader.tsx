/**
 * The session's header: title, agent, the model and workspace (locked: they were fixed when
 * the session was created), and the two settings that may change mid-session, approval mode
 * and thinking level. Shows the stream's connection state when it is not open, the running
 * goal's chip (objective, round, tokens used of the budget) while one runs, and the button
 * that opens the details panel (processes, trace).
 */
import { APPROVAL_MODES, THINKING_LEVELS, type ApprovalMode, type SessionSummary, type ThinkingLevel } from "../../api/types";
import type { SseStatus } from "../../api/sse";
import { workspaceLabel } from "../../state/session-list-store";
import { Icon } from "../../components/ui/Icon";
import type { GoalView } from "../../lib/stream/goal";
import { GoalChip } from "./rows/GoalRows";

export interface HeaderPatch {
  approvalMode?: ApprovalMode;
  thinkingLevel?: ThinkingLevel;
}

const SELECT = "rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs dark:border-slate-700 dark:bg-slate-900";

export function SessionHeader({ session, title, connection, running, goal, details, onDetails, onPatch }: { session: SessionSummary | undefined; title: string | undefined; connection: SseStatus; running: boolean; goal?: GoalView | undefined; details: boolean; onDetails(): void; onPatch(p: HeaderPatch): Promise<void> }) {
  return (
    <header className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-200 px-3 py-2 sm:px-6 dark:border-slate-800">
      <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">
        {title ?? "New chat"}
        {running && <span className="ml-2 inline-block h-2 w-2 animate-pulse rounded-full bg-blue-500" aria-label="running" />}
      </h1>
      {goal !== undefined && (
        <div className="order-last flex min-w-0 basis-full">
          <GoalChip goal={goal} />
        </div>
      )}
      {connection !== "open" && (
        <span role="status" className="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800 dark:bg-amber-900 dark:text-amber-100">
          {connection === "closed" ? "Disconnected" : connection === "connecting" ? "Connecting…" : "Reconnecting…"}
        </span>
      )}
      {session !== undefined && (
        <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
          <span title="Agent">{session.agentId}</span>
          <span title="The model is fixed for this session" className="rounded bg-slate-100 px-1.5 py-0.5 dark:bg-slate-800">
            <Icon name="lock" className="mr-1 h-3 w-3 align-[-1px]" />
            {session.provider}/{session.modelId}
          </span>
          <span title={`Workspace (fixed): ${session.workspace ?? ""}`} className="max-w-40 truncate rounded bg-slate-100 px-1.5 py-0.5 dark:bg-slate-800">
            <Icon name="lock" className="mr-1 h-3 w-3 align-[-1px]" />
            {workspaceLabel(session.workspace)}
          </span>
          <label className="flex items-center gap-1">
            <span>Approval</span>
            <select className={SELECT} aria-label="Session approval mode" value={session.approvalMode} onChange={(e) => {
              const mode = APPROVAL_MODES.find((m) => m === e.target.value);
              if (mode !== undefined) void onPatch({ approvalMode: mode });
            }}>
              {APPROVAL_MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-1">
            <span>Thinking</span>
            <select className={SELECT} aria-label="Session thinking level" value={session.thinkingLevel ?? ""} onChange={(e) => {
              const level = THINKING_LEVELS.find((l) => l === e.target.value);
              if (level !== undefined) void onPatch({ thinkingLevel: level });
            }}>
              {session.thinkingLevel === null && <option value="">default</option>}
              {THINKING_LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          <button type="button" aria-expanded={details} onClick={onDetails} className="rounded border border-slate-300 px-1.5 py-0.5 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800">
            Details
          </button>
        </div>
      )}
    </header>
  );
}
