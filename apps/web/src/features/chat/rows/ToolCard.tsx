/**
 * One tool call: status, name, a one-line summary of the arguments, a live timer, inline
 * Allow/Deny when the call waits for approval, and collapsible arguments and output (the
 * output streams in as the tool writes it). Everything comes from the ToolItem; the card
 * holds only its own open/closed state. The timer ticks only while the call is live.
 */
import { createSignal, For, Show } from "solid-js";
import { formatDuration } from "../../../lib/format";
import { createNow } from "../../../lib/create-now";
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

export function ToolCard(props: ToolCardProps) {
  const [showArgs, setShowArgs] = createSignal(false);
  const [showOutput, setShowOutput] = createSignal(false);
  const live = () => props.item.endedAt === undefined && (props.item.status === "running" || props.item.status === "pending" || props.item.status === "streaming");
  const now = createNow(live, 250);
  const elapsed = () => (props.item.endedAt ?? (live() ? now() : props.item.startedAt)) - props.item.startedAt;
  const status = () => (props.awaitingApproval ? { label: "approval needed", look: STATUS.pending.look } : STATUS[props.item.status]);
  const summary = () => summarizeArgs(props.item.args);
  const outputOpen = () => showOutput() || (props.item.outputStreaming && props.item.output !== "");
  return (
    <article aria-label={`Tool ${props.item.name || "call"}`} class="rounded-lg border border-slate-200 bg-slate-50/60 text-sm dark:border-slate-800 dark:bg-slate-900/60">
      <header class="flex flex-wrap items-center gap-2 px-3 py-2">
        <span class={`rounded px-1.5 py-0.5 text-xs font-medium ${status().look}`}>{status().label}</span>
        <span class="font-mono font-semibold">{props.item.name || "…"}</span>
        <span class="min-w-0 flex-1 truncate font-mono text-xs text-slate-600 dark:text-slate-400" title={summary()}>
          {summary()}
        </span>
        <span class="text-xs tabular-nums text-slate-500" aria-label="Elapsed time">
          {formatDuration(Math.max(0, elapsed()))}
        </span>
      </header>
      <Show when={props.awaitingApproval}>
        <div class="border-t border-amber-200 bg-amber-50 px-3 py-2 dark:border-amber-900 dark:bg-amber-950">
          <ApprovalButtons toolName={props.item.name} onDecide={(d) => props.onDecide(props.item.toolCallId, d)} />
        </div>
      </Show>
      <Show when={props.item.policyRule}>{(rule) => <p class="px-3 pb-2 text-xs text-red-700 dark:text-red-400">Blocked by the command policy rule “{rule()}”.</p>}</Show>
      <div class="flex gap-1 px-2 pb-1">
        <button type="button" aria-expanded={showArgs()} onClick={() => setShowArgs(!showArgs())} class="rounded px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-200 dark:text-slate-400 dark:hover:bg-slate-800">
          {showArgs() ? "▾" : "▸"} Arguments
        </button>
        <Show when={props.item.output !== "" || props.item.images.length > 0}>
          <button type="button" aria-expanded={outputOpen()} onClick={() => setShowOutput(!outputOpen())} class="rounded px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-200 dark:text-slate-400 dark:hover:bg-slate-800">
            {outputOpen() ? "▾" : "▸"} Output
          </button>
        </Show>
      </div>
      <Show when={showArgs()}>
        <pre class="mx-3 mb-2 max-h-64 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-slate-950">{prettyArgs(props.item.args)}</pre>
      </Show>
      <Show when={outputOpen()}>
        <div class="mx-3 mb-2">
          <pre class="max-h-80 overflow-auto rounded bg-white p-2 font-mono text-xs whitespace-pre-wrap dark:bg-slate-950" aria-label="Tool output">
            {props.item.output}
          </pre>
          <For each={props.item.images}>{(src, i) => <img src={src} alt={`Tool output image ${i() + 1}`} class="mt-1 max-h-64 rounded" />}</For>
        </div>
      </Show>
    </article>
  );
}
