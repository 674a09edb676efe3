/**
 * Changing one's password: current password, new password twice (at least 8 characters,
 * the server's rule). Used by the forced first-login change and by Settings.
 */
import { useState } from "react";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { useAuth } from "../../state/auth-store";

export function PasswordForm({ initialOld = "", submitLabel = "Change password", onDone }: { initialOld?: string; submitLabel?: string; onDone?: () => void }) {
  const change = useAuth((s) => s.changePassword);
  const [oldPassword, setOld] = useState(initialOld);
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const mismatch = again !== "" && next !== again ? "The two new passwords differ." : undefined;
  const tooShort = next !== "" && next.length < 8 ? "At least 8 characters." : undefined;

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await change(oldPassword, next);
      setDone(true);
      setNext("");
      setAgain("");
      setOld("");
      onDone?.();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      className="flex flex-col gap-3"
    >
      <TextField label="Current password" type="password" autoComplete="current-password" value={oldPassword} onChange={(e) => setOld(e.target.value)} required />
      <TextField label="New password" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} error={tooShort} required />
      <TextField label="Repeat the new password" type="password" autoComplete="new-password" value={again} onChange={(e) => setAgain(e.target.value)} error={mismatch} required />
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {done && <Notice tone="success">Password changed.</Notice>}
      <Button type="submit" variant="primary" disabled={busy || next.length < 8 || next !== again || oldPassword === ""}>
        {submitLabel}
      </Button>
    </form>
  );
}
