/**
 * The message stream: view items drawn as rows, newest at the bottom.
 *
 * Long sessions stay smooth in three ways: the history arrives in pages (the newest trace
 * messages first, "Load older history" for the rest); only the newest `PAGE` rows are
 * mounted (a "Show earlier" button mounts another page); and each row has
 * `content-visibility: auto`, so rows outside the viewport are neither laid out nor painted.
 * Rows are store objects reconciled by id, so a streaming delta updates the one text node
 * it changed; nothing else re-runs.
 *
 * Scrolling follows the stream while the reader is at the bottom (the content's size is
 * watched, so a growing row keeps the end in view), and leaves them alone once they scroll
 * up (a "Jump to latest" button brings them back).
 *
 * Fork is passed to one row only: the newest stats line, when its task completed, the
 * session is idle and the page gave a `fork` action.
 */
import { createEffect, createMemo, createSignal, For, Match, on, onCleanup, onMount, Show, Switch } from "solid-js";
import type { PendingApproval, Pricing } from "../../api/types";
import type { ToolItem, ViewItem } from "../../lib/stream/view-model";
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

/** Narrows a row to one kind, for a <Match> (undefined when it is another kind). */
function as<K extends ViewItem["kind"]>(item: ViewItem, kind: K): Extract<ViewItem, { kind: K }> | undefined {
  return item.kind === kind ? (item as Extract<ViewItem, { kind: K }>) : undefined;
}

function Row(props: RowProps) {
  return (
    <Switch>
      <Match when={as(props.item, "user")}>{(item) => <UserRow item={item()} />}</Match>
      <Match when={as(props.item, "assistant")}>{(item) => <AssistantRow item={item()} />}</Match>
      <Match when={as(props.item, "thinking")}>{(item) => <ThinkingRow item={item()} />}</Match>
      <Match when={as(props.item, "tool")}>{(item) => <ToolCard item={item()} awaitingApproval={props.awaiting} onDecide={props.actions.decide} />}</Match>
      <Match when={as(props.item, "request_error")}>
        {(item) => <RequestErrorRow item={item()} active={props.activeRetry} onRetryNow={props.actions.retryNow} onGiveUp={props.actions.giveUp} />}
      </Match>
      <Match when={as(props.item, "compaction")}>{(item) => <CompactionRow item={item()} />}</Match>
      <Match when={as(props.item, "mcp")}>{(item) => <McpRow item={item()} />}</Match>
      <Match when={as(props.item, "subagent")}>{(item) => <SubagentRow item={item()} />}</Match>
      <Match when={as(props.item, "notice")}>{(item) => <NoticeRow item={item()} />}</Match>
      <Match when={as(props.item, "goal_round")}>{(item) => <GoalRoundRow item={item()} />}</Match>
      <Match when={as(props.item, "goal_finished")}>{(item) => <GoalFinishedRow item={item()} />}</Match>
      <Match when={as(props.item, "stats")}>{(item) => <StatsLine item={item()} pricing={props.pricing} onFork={props.canFork ? props.actions.fork : undefined} />}</Match>
    </Switch>
  );
}

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

function orphanCard(a: PendingApproval): ToolItem {
  return {
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
  };
}

export function StreamList(props: StreamListProps) {
  const [shown, setShown] = createSignal(PAGE);
  const [atBottom, setAtBottom] = createSignal(true);
  let scroller!: HTMLDivElement;
  let content!: HTMLDivElement;
  let pinned = true;

  const start = () => Math.max(0, props.items.length - shown());
  const visible = createMemo(() => props.items.slice(start()));
  const awaiting = createMemo(() => new Set(props.approvals.map((a) => a.toolCallId)));
  const lastRetry = createMemo(() => {
    if (!props.running) return -1;
    for (let i = props.items.length - 1; i >= 0; i--) {
      const it = props.items[i];
      if (it?.kind === "request_error") return it.retryAt !== undefined && !it.superseded ? i : -1;
    }
    return -1;
  });
  const forkAt = createMemo(() => {
    if (props.running || props.actions.fork === undefined) return -1;
    for (let i = props.items.length - 1; i >= 0; i--) {
      const it = props.items[i];
      if (it?.kind === "stats") return it.completed && !it.running ? i : -1;
    }
    return -1;
  });
  // Approvals whose tool card is not drawn yet (or was never streamed) still get buttons.
  const orphans = createMemo(() => {
    const drawn = new Set(props.items.flatMap((i) => (i.kind === "tool" ? [i.toolCallId] : [])));
    return props.approvals.filter((a) => !drawn.has(a.toolCallId)).map(orphanCard);
  });

  const stick = () => {
    if (pinned) scroller.scrollTop = scroller.scrollHeight;
  };
  const onScroll = () => {
    const bottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
    pinned = bottom;
    setAtBottom(bottom);
  };
  createEffect(on([() => props.items.length, () => props.approvals.length], stick));
  onMount(() => {
    stick();
    if (typeof ResizeObserver !== "function") return;
    const ro = new ResizeObserver(stick);
    ro.observe(content);
    onCleanup(() => ro.disconnect());
  });

  const jump = () => {
    pinned = true;
    scroller.scrollTop = scroller.scrollHeight;
    setAtBottom(true);
  };

  return (
    <div class="relative min-h-0 flex-1">
      <div ref={scroller} onScroll={onScroll} class="h-full overflow-y-auto px-3 py-4 sm:px-6" role="log" aria-label="Conversation" aria-live="off">
        <div ref={content} class="mx-auto flex max-w-3xl flex-col gap-3">
          <Show when={start() === 0 && props.hasOlder === true && props.onLoadOlder}>
            {(load) => (
              <button type="button" disabled={props.loadingOlder === true} onClick={() => load()()} class="self-center rounded-full border border-slate-300 px-3 py-1 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800">
                {props.loadingOlder === true ? "Loading older history…" : "Load older history"}
              </button>
            )}
          </Show>
          <Show when={start() > 0}>
            <button type="button" onClick={() => setShown((n) => n + PAGE)} class="self-center rounded-full border border-slate-300 px-3 py-1 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800">
              Show earlier messages ({start()} more)
            </button>
          </Show>
          <For each={visible()}>
            {(item, i) => (
              <div class="stream-row">
                <Row
                  item={item}
                  awaiting={item.kind === "tool" && awaiting().has(item.toolCallId)}
                  activeRetry={start() + i() === lastRetry()}
                  pricing={props.pricing}
                  actions={props.actions}
                  canFork={start() + i() === forkAt()}
                />
              </div>
            )}
          </For>
          <For each={orphans()}>{(card) => <ToolCard item={card} awaitingApproval onDecide={props.actions.decide} />}</For>
        </div>
      </div>
      <Show when={!atBottom()}>
        <button type="button" onClick={jump} class="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full bg-slate-800 px-3 py-1 text-xs text-white shadow dark:bg-slate-200 dark:text-slate-900">
          Jump to latest
        </button>
      </Show>
    </div>
  );
}
