/**
 * Sign-in. There is no sign-up: users are created by the admin, and the first admin
 * password is printed by the server at start (and kept in `initial-admin-password`).
 */
import { useState } from "react";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { useAuth } from "../../state/auth-store";
import { Icon } from "../../components/ui/Icon";

export default function LoginPage() {
  const signIn = useAuth((s) => s.signIn);
  const [userId, setUserId] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await signIn(userId.trim(), password);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <main className="flex min-h-full items-center justify-center bg-slate-50 p-4 dark:bg-slate-950">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        className="flex w-full max-w-sm flex-col gap-4 rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900"
      >
        <div className="text-center">
          <Icon name="penguin" className="mx-auto h-10 w-10 text-slate-700 dark:text-slate-200" />
          <h1 className="text-lg font-semibold">Sign in to PenguinHarness</h1>
        </div>
        <TextField label="User id" autoComplete="username" value={userId} onChange={(e) => setUserId(e.target.value)} required autoFocus />
        <TextField label="Password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        {error !== undefined && <Notice tone="error">{error}</Notice>}
        <Button type="submit" variant="primary" disabled={busy || userId === "" || password === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </Button>
        <p className="text-xs text-slate-500">First time? Sign in as <code>admin</code> with the password the server printed when it started.</p>
      </form>
    </main>
  );
}
