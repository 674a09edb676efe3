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
import { createSignal, For, Show } from "solid-js";
import { A } from "@solidjs/router";
import { errorText } from "../../../api/http";
import type { Pricing } from "../../../api/types";
import { costOf, formatCost, formatDuration, formatRate, formatTokens } from "../../../lib/format";
import type { CompactionItem, McpItem, NoticeItem, StatsItem, SubagentItem } from "../../../lib/stream/view-model";
import { Icon } from "../../../components/ui/Icon";

export function CompactionRow(props: { item: CompactionItem }) {
  const text = () => {
    const item = props.item;
    return item.status === "running"
      ? "Compacting the context…"
      : item.status === "completed"
        ? `Context compacted (${item.mode}, ${item.reason})`
        : `Compaction ${item.status}${item.error !== undefined ? `: ${item.error}` : ""} — the context was kept`;
  };
  return (
    <div role="status" class="flex items-center gap-2 text-xs text-slate-500">
      <span class="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      <span>{text()}</span>
      <span class="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
    </div>
  );
}

export function McpRow(props: { item: McpItem }) {
  return (
    <div class="text-xs text-slate-500">
      <Show
        when={props.item.status !== "connecting"}
        fallback={<span>Connecting MCP servers: {props.item.servers.join(", ")}…</span>}
      >
        <ul class="flex flex-wrap gap-2">
          <For each={props.item.results}>
            {(r) => (
              <li class={r.status === "connected" ? "text-green-700 dark:text-green-400" : "text-red-700 dark:text-red-400"} title={r.error}>
                MCP {r.server}: {r.status} ({r.transport}, {formatDuration(r.duration_ms)}
                {r.tools !== undefined ? `, ${r.tools.length} tools` : ""})
              </li>
            )}
          </For>
        </ul>
      </Show>
    </div>
  );
}

export function NoticeRow(props: { item: NoticeItem }) {
  const [open, setOpen] = createSignal(false);
  const collapsible = () => props.item.body.trim() !== "";
  return (
    <div class="rounded-md border border-dashed border-slate-300 px-3 py-1.5 text-xs text-slate-600 dark:border-slate-700 dark:text-slate-400">
      <Show when={collapsible()} fallback={<span class="font-medium">{props.item.title}</span>}>
        <button type="button" aria-expanded={open()} onClick={() => setOpen(!open())} class="font-medium">
          {open() ? "▾" : "▸"} {props.item.title}
        </button>
      </Show>
      <Show when={open()}>
        <p class="mt-1 whitespace-pre-wrap">{props.item.body}</p>
      </Show>
    </div>
  );
}

export function SubagentRow(props: { item: SubagentItem }) {
  return (
    <div class="flex items-center gap-2 rounded-md border border-violet-200 bg-violet-50 px-3 py-2 text-sm dark:border-violet-900 dark:bg-violet-950">
      <Icon name="subagent" class={`h-4 w-4 text-violet-600 ${props.item.active ? "animate-pulse" : ""}`} />
      <div class="min-w-0 flex-1">
        <div class="text-xs font-medium text-violet-800 dark:text-violet-200">
          Subagent {props.item.active ? "working" : ""} · {props.item.messages} messages
        </div>
        <Show when={props.item.preview !== ""}>
          <div class="truncate text-xs text-slate-600 dark:text-slate-400">{props.item.preview}</div>
        </Show>
      </div>
      <A href={`/chat/${encodeURIComponent(props.item.childId)}`} class="text-xs font-medium text-violet-700 underline dark:text-violet-300">
        Open stream
      </A>
    </div>
  );
}

export function StatsLine(props: { item: StatsItem; pricing: Pricing | undefined; onFork?: (() => Promise<void>) | undefined }) {
  const [forking, setForking] = createSignal(false);
  const [forkError, setForkError] = createSignal<string | undefined>(undefined);
  const stats = () => props.item.stats;
  const tps = () => (stats().generationMs > 0 ? stats().tokens.output / (stats().generationMs / 1000) : undefined);
  const cost = () => costOf(stats().tokens, props.pricing);
  const fork = async () => {
    const onFork = props.onFork;
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
    <div class="flex flex-wrap items-center gap-x-2 gap-y-1">
      <p class="text-xs text-slate-500 tabular-nums" aria-label="Task statistics">
        {props.item.running ? "So far: " : ""}
        {formatTokens(stats().tokens.total)} tokens ({formatTokens(stats().tokens.output)} out) · {formatRate(tps())} · {formatDuration(stats().durationMs)} · {formatCost(cost())}
        {stats().requests > 1 ? ` · ${stats().requests} requests` : ""}
      </p>
      <Show when={props.onFork !== undefined}>
        <button
          type="button"
          onClick={() => void fork()}
          disabled={forking()}
          title="Start a new session that continues from this answer"
          class="inline-flex items-center gap-1 rounded border border-slate-300 px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-100 disabled:opacity-60 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
        >
          <Icon name="fork" class="h-3 w-3" />
          {forking() ? "Forking…" : "Fork"}
        </button>
      </Show>
      <Show when={forkError()}>
        {(e) => (
          <p role="alert" class="basis-full text-xs text-red-600 dark:text-red-400">
            Could not fork: {e()}
          </p>
        )}
      </Show>
    </div>
  );
}
