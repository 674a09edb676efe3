/**
 * Allow / Deny for a tool call waiting on the person. Both buttons disable once clicked
 * (one decision per call), and a failed request re-enables them with the error shown.
 */
import { useState } from "react";
import { errorText } from "../../../api/http";
import { Button } from "../../../components/ui/Button";

export function ApprovalButtons({ toolName, onDecide }: { toolName: string; onDecide(decision: "allow" | "deny"): Promise<void> }) {
  const [pending, setPending] = useState<"allow" | "deny" | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const decide = async (decision: "allow" | "deny") => {
    setPending(decision);
    setError(undefined);
    try {
      await onDecide(decision);
    } catch (e) {
      setError(errorText(e));
      setPending(undefined);
    }
  };
  return (
    <div role="group" aria-label={`Approve ${toolName}`} className="flex flex-wrap items-center gap-2">
      <span className="text-xs font-medium text-amber-800 dark:text-amber-300">Needs your approval</span>
      <Button variant="primary" size="sm" disabled={pending !== undefined} onClick={() => void decide("allow")}>
        Allow
      </Button>
      <Button variant="danger" size="sm" disabled={pending !== undefined} onClick={() => void decide("deny")}>
        Deny
      </Button>
      {error !== undefined && (
        <span role="alert" className="text-xs text-red-600">
          {error}
        </span>
      )}
    </div>
  );
}
