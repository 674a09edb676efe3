/**
 * One tool call: status, name, a one-line summary of the arguments, a live timer, inline
 * Allow/Deny when the call waits for approval, and collapsible arguments and output (the
 * output streams in as the tool writes it). Everything comes from the ToolItem; the card
 * holds only its own open/closed state.
 */
import { memo, useState } from "react";
import { formatDuration } from "../../../lib/format";
import { useNow } from "../../../lib/use-now";
import type { ToolItem, ToolStatus } from "../../../lib/stream/view-model";
import { prettyArgs, summarizeArgs } from "../tool-summary";
import { ApprovalButtons } from "./ApprovalButtons";

const STATUS: Record<ToolStatus, { label: string; look: string }> = {
  streaming: { label: "preparing", look: "bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200" },
  pending: { label: "waiting", look: "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100" },
  running: { label: "running", look: "bg-blue-100 text-blue-800 dark:bg-blue-900 dark:text-blue-100" },
  done: { label: "done", look: "bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100" },
  failed: { label: "failed", look: "bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-100" },
  denied: { label: "denied", look: "bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-100" },
  forbidden: { label: "blocked by policy", look: "bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-100" },
  aborted: { label: "stopped", look: "bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200" },
};

export interface ToolCardProps {
  item: ToolItem;
  awaitingApproval: boolean;
  onDecide(toolCallId: string, decision: "allow" | "deny"): Promise<void>;
}

export const ToolCard = memo(function ToolCard({ item, awaitingApproval, onDecide }: ToolCardProps) {
  const [showArgs, setShowArgs] = useState(false);
  const [showOutput, setShowOutput] = useState(false);
  const live = item.endedAt === undefined && (item.status === "running" || item.status === "pending" || item.status === "streaming");
  const now = useNow(live, 250);
  const elapsed = (item.endedAt ?? (live ? now : item.startedAt)) - item.startedAt;
  const status = awaitingApproval ? { label: "approval needed", look: STATUS.pending.look } : STATUS[item.status];
  const summary = summarizeArgs(item.args);
  const outputOpen = showOutput || (item.outputStreaming && item.output !== "");
  return (
    <article aria-label={`Tool ${item.name || "call"}`} className="rounded-lg border border-slate-200 bg-slate-50/60 text-sm dark:border-slate-800 dark:bg-slate-900/60">
      <header className="flex flex-wrap items-center gap-2 px-3 py-2">
        <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${status.look}`}>{status.label}</span>
        <span className="font-mono font-semibold">{item.name || "…"}</span>
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-600 dark:text-slate-400" title={summary}>
          {summary}
        </span>
        <span className="text-xs tabular-nums text-slate-500" aria-label="Elapsed time">
          {formatDuration(Math.max(0, elapsed))}
        </span>
      </header>
      {awaitingApproval && (
        <div className="border-t border-amber-200 bg-amber-50 px-3 py-2 dark:border-amber-900 dark:bg-amber-950">
          <ApprovalButtons toolName={item.name} onDecide={(d) => onDecide(item.toolCallId, d)} />
        </div>
      )}
      {item.policyRule !== undefined && <p className="px-3 pb-2 text-xs text-red-700 dark:text-red-400">Blocked by the command policy rule “{item.policyRule}”.</p>}
      <div className="flex gap-1 px-2 pb-1">
        <button type="button" aria-expanded={showArgs} onClick={() => setShowArgs(!showArgs)} className="rounded px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-200 dark:text-slate-400 dark:hover:bg-slate-800">
          {showArgs ? "▾" : "▸"} Arguments
        </button>
        {(item.output !== "" || item.images.length > 0) && (
          <button type="button" aria-expanded={outputOpen} onClick={() => setShowOutput(!outputOpen)} className="rounded px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-200 dark:text-slate-400 dark:hover:bg-slate-800">
            {outputOpen ? "▾" : "▸"} Output
          </button>
        )}
      </div>
      {showArgs && <pre className="mx-3 mb-2 max-h-64 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-slate-950">{prettyArgs(item.args)}</pre>}
      {outputOpen && (
        <div className="mx-3 mb-2">
          <pre className="max-h-80 overflow-auto rounded bg-white p-2 font-mono text-xs whitespace-pre-wrap dark:bg-slate-950" aria-label="Tool output">
            {item.output}
          </pre>
          {item.images.map((src, i) => (
            <img key={i} src={src} alt={`Tool output image ${i + 1}`} className="mt-1 max-h-64 rounded" />
          ))}
        </div>
      )}
    </article>
  );
});
