/**
 * The small rows of the stream: compaction, MCP connection, harness notices (summaries,
 * stopped turns, goals…), subagents (a link to the child's own stream) and the per-task
 * stats line (tokens, tokens per second, time, cost).
 */
import { memo, useState } from "react";
import { Link } from "react-router";
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

export const StatsLine = memo(function StatsLine({ item, pricing }: { item: StatsItem; pricing: Pricing | undefined }) {
  const { stats } = item;
  const tps = stats.generationMs > 0 ? stats.tokens.output / (stats.generationMs / 1000) : undefined;
  const cost = costOf(stats.tokens, pricing);
  return (
    <p className="text-xs text-slate-500 tabular-nums" aria-label="Task statistics">
      {item.running ? "So far: " : ""}
      {formatTokens(stats.tokens.total)} tokens ({formatTokens(stats.tokens.output)} out) · {formatRate(tps)} · {formatDuration(stats.durationMs)} · {formatCost(cost)}
      {stats.requests > 1 ? ` · ${stats.requests} requests` : ""}
    </p>
  );
});
