/**
 * Sign-in. There is no sign-up: users are created by the admin, and the first admin
 * password is printed by the server at start (and kept in `initial-admin-password`).
 */
import { createSignal, Show } from "solid-js";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Icon } from "../../components/ui/Icon";
import { Notice } from "../../components/ui/Notice";
import { signIn } from "../../state/auth-store";

export default function LoginPage() {
  const [userId, setUserId] = createSignal("");
  const [password, setPassword] = createSignal("");
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [busy, setBusy] = createSignal(false);

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await signIn(userId().trim(), password());
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <main class="flex min-h-full items-center justify-center bg-slate-50 p-4 dark:bg-slate-950">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        class="flex w-full max-w-sm flex-col gap-4 rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900"
      >
        <div class="text-center">
          <Icon name="penguin" class="mx-auto h-10 w-10 text-slate-700 dark:text-slate-200" />
          <h1 class="text-lg font-semibold">Sign in to PenguinHarness</h1>
        </div>
        <TextField label="User id" autocomplete="username" value={userId()} onValue={setUserId} required autofocus />
        <TextField label="Password" type="password" autocomplete="current-password" value={password()} onValue={setPassword} required />
        <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
        <Button type="submit" variant="primary" disabled={busy() || userId() === "" || password() === ""}>
          {busy() ? "Signing in…" : "Sign in"}
        </Button>
        <p class="text-xs text-slate-500">
          First time? Sign in as <code>admin</code> with the password the server printed when it started.
        </p>
      </form>
    </main>
  );
}
