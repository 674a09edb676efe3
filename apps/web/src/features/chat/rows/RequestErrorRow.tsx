/**
 * A request that did not complete. When the engine will retry (`retry_in_ms` on the
 * request_end) it counts down to the retry, with "Retry now" (skip the wait) and "Give up"
 * (abort the task); once a new request begins the row just records what happened. An
 * `auth` failure says that the credentials were rejected (the composer is locked apart).
 */
import { memo, useState } from "react";
import { Button } from "../../../components/ui/Button";
import { formatDuration } from "../../../lib/format";
import { useNow } from "../../../lib/use-now";
import type { RequestErrorItem } from "../../../lib/stream/view-model";

export interface RequestErrorRowProps {
  item: RequestErrorItem;
  /** The latest pending retry of a running task: only it gets the controls. */
  active: boolean;
  onRetryNow(): Promise<void>;
  onGiveUp(): Promise<void>;
}

export const RequestErrorRow = memo(function RequestErrorRow({ item, active, onRetryNow, onGiveUp }: RequestErrorRowProps) {
  const [busy, setBusy] = useState(false);
  const counting = active && item.retryAt !== undefined && !item.superseded;
  const now = useNow(counting, 250);
  const left = item.retryAt === undefined ? 0 : Math.max(0, item.retryAt - now);
  const title = item.status === "auth" ? "The model rejected the credentials" : `Request ${item.status}`;
  const run = (fn: () => Promise<void>) => {
    setBusy(true);
    void fn().finally(() => setBusy(false));
  };
  return (
    <div role={item.status === "auth" ? "alert" : undefined} className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm dark:border-red-900 dark:bg-red-950">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium text-red-800 dark:text-red-200">{title}</span>
        {item.attempt !== undefined && <span className="text-xs text-red-700 dark:text-red-300">attempt {item.attempt}</span>}
        {counting && (
          <span className="text-xs text-red-700 dark:text-red-300" aria-live="polite">
            {left > 0 ? `retrying in ${formatDuration(left)}` : "retrying…"}
          </span>
        )}
        {!counting && item.retryInMs !== undefined && <span className="text-xs text-slate-500">retried</span>}
      </div>
      <p className="mt-0.5 break-words text-xs text-red-700 dark:text-red-300">{item.message}</p>
      {counting && (
        <div className="mt-2 flex gap-2">
          <Button size="sm" variant="primary" disabled={busy} onClick={() => run(onRetryNow)}>
            Retry now
          </Button>
          <Button size="sm" disabled={busy} onClick={() => run(onGiveUp)}>
            Give up
          </Button>
        </div>
      )}
    </div>
  );
});
