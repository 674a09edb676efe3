/**
 * What a page shows instead of its spinner when the data it waits for could not be loaded:
 * which data, the reason when the page has it (the app shell already shows the project
 * store's own error above the page, so pages waiting on it pass none), and Retry. A spinner
 * that keeps turning after a failed request would promise something that is not coming.
 */
import { createSignal, Show } from "solid-js";
import { Button } from "./Button";
import { Notice } from "./Notice";

export function LoadFailed(props: { what: string; reason?: string; onRetry(): Promise<void> }) {
  const [retrying, setRetrying] = createSignal(false);
  const retry = async () => {
    setRetrying(true);
    try {
      await props.onRetry();
    } finally {
      setRetrying(false);
    }
  };
  return (
    <Notice tone="error">
      <div class="flex flex-wrap items-center gap-3">
        <span>
          Could not load {props.what}
          <Show when={props.reason} fallback=".">{(reason) => <>: {reason()}</>}</Show>
        </span>
        <Button size="sm" disabled={retrying()} onClick={() => void retry()}>
          {retrying() ? "Retrying…" : "Retry"}
        </Button>
      </div>
    </Notice>
  );
}
