/**
 * Changing one's password: current password, new password twice (at least 8 characters,
 * the server's rule). Used by the forced first-login change and by Settings.
 */
import { createSignal, Show } from "solid-js";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { changePassword } from "../../state/auth-store";

export function PasswordForm(props: { initialOld?: string; submitLabel?: string; onDone?: () => void }) {
  const [oldPassword, setOld] = createSignal(props.initialOld ?? "");
  const [next, setNext] = createSignal("");
  const [again, setAgain] = createSignal("");
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [done, setDone] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const mismatch = () => (again() !== "" && next() !== again() ? "The two new passwords differ." : undefined);
  const tooShort = () => (next() !== "" && next().length < 8 ? "At least 8 characters." : undefined);

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await changePassword(oldPassword(), next());
      setDone(true);
      setNext("");
      setAgain("");
      setOld("");
      props.onDone?.();
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
      class="flex flex-col gap-3"
    >
      <TextField label="Current password" type="password" autocomplete="current-password" value={oldPassword()} onValue={setOld} required />
      <TextField label="New password" type="password" autocomplete="new-password" value={next()} onValue={setNext} error={tooShort()} required />
      <TextField label="Repeat the new password" type="password" autocomplete="new-password" value={again()} onValue={setAgain} error={mismatch()} required />
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={done()}>
        <Notice tone="success">Password changed.</Notice>
      </Show>
      <Button type="submit" variant="primary" disabled={busy() || next().length < 8 || next() !== again() || oldPassword() === ""}>
        {props.submitLabel ?? "Change password"}
      </Button>
    </form>
  );
}
