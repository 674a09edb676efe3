/**
 * The message stream: view items drawn as rows, newest at the bottom.
 *
 * Long sessions stay smooth in three ways: the history arrives in pages (the newest trace
 * messages first, "Load older history" for the rest); only the newest `PAGE` rows are
 * mounted (a "Show earlier" button mounts another page); and each row has
 * `content-visibility: auto`, so rows outside the viewport are neither laid out nor painted. Rows are memoised on their
 * item, which the reducer replaces only when it changes, so a streaming delta re-renders
 * one row.
 *
 * Scrolling follows the stream while the reader is at the bottom, and leaves them alone
 * once they scroll up (a "Jump to latest" button brings them back).
 *
 * Fork is passed to one row only: the newest stats line, when its task completed, the
 * session is idle and the page gave a `fork` action.
 */
import { memo, useCallback, useLayoutEffect, useRef, useState } from "react";
import type { PendingApproval, Pricing } from "../../api/types";
import type { ViewItem } from "../../lib/stream/view-model";
import { AssistantRow } from "./rows/AssistantRow";
import { CompactionRow, McpRow, NoticeRow, StatsLine, SubagentRow } from "./rows/EventRows";
import { GoalFinishedRow, GoalRoundRow } from "./rows/GoalRows";
import { RequestErrorRow } from "./rows/RequestErrorRow";
import { ThinkingRow } from "./rows/ThinkingRow";
import { ToolCard } from "./rows/ToolCard";
import { UserRow } from "./rows/UserRow";

export const PAGE = 200;

export interface StreamActions {
  decide(toolCallId: string, decision: "allow" | "deny"): Promise<void>;
  retryNow(): Promise<void>;
  giveUp(): Promise<void>;
  /** Fork the session after its last task and open the fork (absent: no Fork button). */
  fork?(): Promise<void>;
}

interface RowProps {
  item: ViewItem;
  awaiting: boolean;
  activeRetry: boolean;
  pricing: Pricing | undefined;
  actions: StreamActions;
  canFork: boolean;
}

const Row = memo(function Row({ item, awaiting, activeRetry, pricing, actions, canFork }: RowProps) {
  switch (item.kind) {
    case "user":
      return <UserRow item={item} />;
    case "assistant":
      return <AssistantRow item={item} />;
    case "thinking":
      return <ThinkingRow item={item} />;
    case "tool":
      return <ToolCard item={item} awaitingApproval={awaiting} onDecide={actions.decide} />;
    case "request_error":
      return <RequestErrorRow item={item} active={activeRetry} onRetryNow={actions.retryNow} onGiveUp={actions.giveUp} />;
    case "compaction":
      return <CompactionRow item={item} />;
    case "mcp":
      return <McpRow item={item} />;
    case "subagent":
      return <SubagentRow item={item} />;
    case "notice":
      return <NoticeRow item={item} />;
    case "goal_round":
      return <GoalRoundRow item={item} />;
    case "goal_finished":
      return <GoalFinishedRow item={item} />;
    case "stats":
      return <StatsLine item={item} pricing={pricing} onFork={canFork ? actions.fork : undefined} />;
  }
});

export interface StreamListProps {
  items: readonly ViewItem[];
  approvals: readonly PendingApproval[];
  running: boolean;
  pricing: Pricing | undefined;
  actions: StreamActions;
  /** Older history exists on the server beyond what was loaded. */
  hasOlder?: boolean;
  loadingOlder?: boolean;
  onLoadOlder?: () => void;
}

export function StreamList({ items, approvals, running, pricing, actions, hasOlder = false, loadingOlder = false, onLoadOlder }: StreamListProps) {
  const [shown, setShown] = useState(PAGE);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [atBottom, setAtBottom] = useState(true);
  const start = Math.max(0, items.length - shown);
  const visible = items.slice(start);
  const awaiting = new Set(approvals.map((a) => a.toolCallId));
  const toolIds = new Set(items.flatMap((i) => (i.kind === "tool" ? [i.toolCallId] : [])));
  let lastRetry = -1;
  if (running) {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it?.kind === "request_error") {
        if (it.retryAt !== undefined && !it.superseded) lastRetry = i;
        break;
      }
    }
  }

  let forkAt = -1;
  if (!running && actions.fork !== undefined) {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it?.kind === "stats") {
        if (it.completed && !it.running) forkAt = i;
        break;
      }
    }
  }

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el === null) return;
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    pinned.current = bottom;
    setAtBottom(bottom);
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el !== null && pinned.current) el.scrollTop = el.scrollHeight;
  }, [items, approvals]);

  const jump = () => {
    const el = scroller.current;
    if (el === null) return;
    pinned.current = true;
    el.scrollTop = el.scrollHeight;
    setAtBottom(true);
  };

  // Approvals whose tool card is not drawn yet (or was never streamed) still get buttons.
  const orphans = approvals.filter((a) => !toolIds.has(a.toolCallId));

  return (
    <div className="relative min-h-0 flex-1">
      <div ref={scroller} onScroll={onScroll} className="h-full overflow-y-auto px-3 py-4 sm:px-6" role="log" aria-label="Conversation" aria-live="off">
        <div className="mx-auto flex max-w-3xl flex-col gap-3">
          {start === 0 && hasOlder && onLoadOlder !== undefined && (
            <button type="button" disabled={loadingOlder} onClick={onLoadOlder} className="self-center rounded-full border border-slate-300 px-3 py-1 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800">
              {loadingOlder ? "Loading older history…" : "Load older history"}
            </button>
          )}
          {start > 0 && (
            <button type="button" onClick={() => setShown((n) => n + PAGE)} className="self-center rounded-full border border-slate-300 px-3 py-1 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800">
              Show earlier messages ({start} more)
            </button>
          )}
          {visible.map((item, i) => (
            <div key={item.id} className="stream-row">
              <Row
                item={item}
                awaiting={item.kind === "tool" && awaiting.has(item.toolCallId)}
                activeRetry={start + i === lastRetry}
                pricing={item.kind === "stats" ? pricing : undefined}
                actions={actions}
                canFork={start + i === forkAt}
              />
            </div>
          ))}
          {orphans.map((a) => (
            <ToolCard
              key={a.toolCallId}
              item={{
                kind: "tool",
                id: a.toolCallId,
                toolCallId: a.toolCallId,
                name: a.toolCall.name,
                args: a.toolCall.arguments,
                status: "pending",
                output: "",
                images: [],
                outputStreaming: false,
                decision: undefined,
                policyRule: undefined,
                startedAt: a.requestedAt ?? Date.now(),
                endedAt: undefined,
              }}
              awaitingApproval
              onDecide={actions.decide}
            />
          ))}
        </div>
      </div>
      {!atBottom && (
        <button type="button" onClick={jump} className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full bg-slate-800 px-3 py-1 text-xs text-white shadow dark:bg-slate-200 dark:text-slate-900">
          Jump to latest
        </button>
      )}
    </div>
  );
}
