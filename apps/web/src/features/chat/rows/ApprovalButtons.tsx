/**
 * Allow / Deny for a tool call waiting on the person. Both buttons disable once clicked
 * (one decision per call), and a failed request re-enables them with the error shown.
 * Keyboard: the buttons are in the tab order; Tab reaches Allow first.
 */
import { createSignal, Show } from "solid-js";
import { errorText } from "../../../api/http";
import { Button } from "../../../components/ui/Button";

export function ApprovalButtons(props: { toolName: string; onDecide(decision: "allow" | "deny"): Promise<void> }) {
  const [pending, setPending] = createSignal<"allow" | "deny" | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const decide = async (decision: "allow" | "deny") => {
    setPending(decision);
    setError(undefined);
    try {
      await props.onDecide(decision);
    } catch (e) {
      setError(errorText(e));
      setPending(undefined);
    }
  };
  return (
    <div role="group" aria-label={`Approve ${props.toolName}`} class="flex flex-wrap items-center gap-2">
      <span class="text-xs font-medium text-amber-800 dark:text-amber-300">Needs your approval</span>
      <Button variant="primary" size="sm" disabled={pending() !== undefined} onClick={() => void decide("allow")}>
        Allow
      </Button>
      <Button variant="danger" size="sm" disabled={pending() !== undefined} onClick={() => void decide("deny")}>
        Deny
      </Button>
      <Show when={error()}>
        {(e) => (
          <span role="alert" class="text-xs text-red-600">
            {e()}
          </span>
        )}
      </Show>
    </div>
  );
}
