/**
 * A request that did not complete. When the engine will retry (`retry_in_ms` on the
 * request_end) it counts down to the retry, with "Retry now" (skip the wait) and "Give up"
 * (abort the task); once a new request begins the row just records what happened. An
 * `auth` failure says that the credentials were rejected (the composer is locked apart).
 */
import { createSignal, Show } from "solid-js";
import { Button } from "../../../components/ui/Button";
import { formatDuration } from "../../../lib/format";
import { createNow } from "../../../lib/create-now";
import type { RequestErrorItem } from "../../../lib/stream/view-model";

export interface RequestErrorRowProps {
  item: RequestErrorItem;
  /** The latest pending retry of a running task: only it gets the controls. */
  active: boolean;
  onRetryNow(): Promise<void>;
  onGiveUp(): Promise<void>;
}

export function RequestErrorRow(props: RequestErrorRowProps) {
  const [busy, setBusy] = createSignal(false);
  const counting = () => props.active && props.item.retryAt !== undefined && !props.item.superseded;
  const now = createNow(counting, 250);
  const left = () => (props.item.retryAt === undefined ? 0 : Math.max(0, props.item.retryAt - now()));
  const title = () => (props.item.status === "auth" ? "The model rejected the credentials" : `Request ${props.item.status}`);
  const run = (fn: () => Promise<void>) => {
    setBusy(true);
    void fn().finally(() => setBusy(false));
  };
  return (
    <div role={props.item.status === "auth" ? "alert" : undefined} class="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm dark:border-red-900 dark:bg-red-950">
      <div class="flex flex-wrap items-center gap-2">
        <span class="font-medium text-red-800 dark:text-red-200">{title()}</span>
        <Show when={props.item.attempt !== undefined}>
          <span class="text-xs text-red-700 dark:text-red-300">attempt {props.item.attempt}</span>
        </Show>
        <Show when={counting()}>
          <span class="text-xs text-red-700 dark:text-red-300" aria-live="polite">
            {left() > 0 ? `retrying in ${formatDuration(left())}` : "retrying…"}
          </span>
        </Show>
        <Show when={!counting() && props.item.retryInMs !== undefined}>
          <span class="text-xs text-slate-500">retried</span>
        </Show>
      </div>
      <p class="mt-0.5 break-words text-xs text-red-700 dark:text-red-300">{props.item.message}</p>
      <Show when={counting()}>
        <div class="mt-2 flex gap-2">
          <Button size="sm" variant="primary" disabled={busy()} onClick={() => run(props.onRetryNow)}>
            Retry now
          </Button>
          <Button size="sm" disabled={busy()} onClick={() => run(props.onGiveUp)}>
            Give up
          </Button>
        </div>
      </Show>
    </div>
  );
}
