/**
 * Shown instead of the app while the signed-in user still has the initial password (the
 * one the server generated): a new one must be chosen before anything else.
 */
import { PasswordForm } from "./PasswordForm";

export default function InitialPasswordPage() {
  return (
    <main class="flex min-h-full items-center justify-center bg-slate-50 p-4 dark:bg-slate-950">
      <section aria-labelledby="initial-pw" class="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 id="initial-pw" class="mb-1 text-lg font-semibold">
          Choose a new password
        </h1>
        <p class="mb-4 text-sm text-slate-600 dark:text-slate-400">You signed in with the initial password. Set your own to continue.</p>
        <PasswordForm submitLabel="Set password and continue" />
      </section>
    </main>
  );
}
