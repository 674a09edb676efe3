/**
 * The small rows of the stream: compaction, MCP connection, harness notices (summaries,
 * stopped turns…), subagents (a link to the child's own stream) and the per-task stats line
 * (tokens, tokens per second, time, cost, and Fork).
 *
 * Fork is offered only where the stream list passes `onFork`: the last completed task of an
 * idle session (forking after the last task needs no position). The button shows progress,
 * and a refusal (409 cannot_fork / task_in_progress) is said next to it; on success the
 * page has already moved to the new session.
 */
import { memo, useState } from "react";
import { Link } from "react-router";
import { errorText } from "../../../api/http";
import type { Pricing } from "../../../api/types";
import { costOf, formatCost, formatDuration, formatRate, formatTokens } from "../../../lib/format";
import type { CompactionItem, McpItem, NoticeItem, StatsItem, SubagentItem } from "../../../lib/stream/view-model";
import { Icon } from "../../../components/ui/Icon";

export const CompactionRow = memo(function CompactionRow({ item }: { item: CompactionItem }) {
  const text =
    item.status === "running"
      ? "Compacting the context…"
      : item.status === "completed"
        ? `Context compacted (${item.mode}, ${item.reason})`
        : `Compaction ${item.status}${item.error !== undefined ? `: ${item.error}` : ""} — the context was kept`;
  return (
    <div role="status" className="flex items-center gap-2 text-xs text-slate-500">
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      <span>{text}</span>
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
    </div>
  );
});

export const McpRow = memo(function McpRow({ item }: { item: McpItem }) {
  const connecting = item.status === "connecting";
  return (
    <div className="text-xs text-slate-500">
      {connecting ? (
        <span>Connecting MCP servers: {item.servers.join(", ")}…</span>
      ) : (
        <ul className="flex flex-wrap gap-2">
          {item.results.map((r) => (
            <li key={r.server} className={r.status === "connected" ? "text-green-700 dark:text-green-400" : "text-red-700 dark:text-red-400"} title={r.error}>
              MCP {r.server}: {r.status} ({r.transport}, {formatDuration(r.duration_ms)}
              {r.tools !== undefined ? `, ${r.tools.length} tools` : ""})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
});

export const NoticeRow = memo(function NoticeRow({ item }: { item: NoticeItem }) {
  const [open, setOpen] = useState(false);
  const collapsible = item.body.trim() !== "";
  return (
    <div className="rounded-md border border-dashed border-slate-300 px-3 py-1.5 text-xs text-slate-600 dark:border-slate-700 dark:text-slate-400">
      {collapsible ? (
        <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} className="font-medium">
          {open ? "▾" : "▸"} {item.title}
        </button>
      ) : (
        <span className="font-medium">{item.title}</span>
      )}
      {open && <p className="mt-1 whitespace-pre-wrap">{item.body}</p>}
    </div>
  );
});

export const SubagentRow = memo(function SubagentRow({ item }: { item: SubagentItem }) {
  return (
    <div className="flex items-center gap-2 rounded-md border border-violet-200 bg-violet-50 px-3 py-2 text-sm dark:border-violet-900 dark:bg-violet-950">
      <Icon name="subagent" className={`h-4 w-4 text-violet-600 ${item.active ? "animate-pulse" : ""}`} />
      <div className="min-w-0 flex-1">
        <div className="text-xs font-medium text-violet-800 dark:text-violet-200">
          Subagent {item.active ? "working" : ""} · {item.messages} messages
        </div>
        {item.preview !== "" && <div className="truncate text-xs text-slate-600 dark:text-slate-400">{item.preview}</div>}
      </div>
      <Link to={`/chat/${encodeURIComponent(item.childId)}`} className="text-xs font-medium text-violet-700 underline dark:text-violet-300">
        Open stream
      </Link>
    </div>
  );
});

export const StatsLine = memo(function StatsLine({ item, pricing, onFork }: { item: StatsItem; pricing: Pricing | undefined; onFork?: (() => Promise<void>) | undefined }) {
  const { stats } = item;
  const [forking, setForking] = useState(false);
  const [forkError, setForkError] = useState<string | undefined>(undefined);
  const tps = stats.generationMs > 0 ? stats.tokens.output / (stats.generationMs / 1000) : undefined;
  const cost = costOf(stats.tokens, pricing);
  const fork = async () => {
    if (onFork === undefined) return;
    setForking(true);
    setForkError(undefined);
    try {
      await onFork();
    } catch (e) {
      setForkError(errorText(e));
    } finally {
      setForking(false);
    }
  };
  return (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <p className="text-xs text-slate-500 tabular-nums" aria-label="Task statistics">
        {item.running ? "So far: " : ""}
        {formatTokens(stats.tokens.total)} tokens ({formatTokens(stats.tokens.output)} out) · {formatRate(tps)} · {formatDuration(stats.durationMs)} · {formatCost(cost)}
        {stats.requests > 1 ? ` · ${stats.requests} requests` : ""}
      </p>
      {onFork !== undefined && (
        <button
          type="button"
          onClick={() => void fork()}
          disabled={forking}
          title="Start a new session that continues from this answer"
          className="inline-flex items-center gap-1 rounded border border-slate-300 px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-100 disabled:opacity-60 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
        >
          <Icon name="fork" className="h-3 w-3" />
          {forking ? "Forking…" : "Fork"}
        </button>
      )}
      {forkError !== undefined && (
        <p role="alert" className="basis-full text-xs text-red-600 dark:text-red-400">
          Could not fork: {forkError}
        </p>
      )}
    </div>
  );
});
