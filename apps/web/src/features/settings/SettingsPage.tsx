/**
 * Settings: my password, the theme (light, dark, or follow the system), and for the admin
 * the users of this server (create, reset a password, delete).
 */
import { Page } from "../../components/layout/Page";
import { useAuth } from "../../state/auth-store";
import { useTheme, type Theme } from "../../state/theme-store";
import { PasswordForm } from "../auth/PasswordForm";
import { UsersAdmin } from "./UsersAdmin";

const THEMES: { value: Theme; label: string }[] = [
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
  { value: "system", label: "System" },
];

export default function SettingsPage() {
  const me = useAuth((s) => s.me);
  const { theme, setTheme } = useTheme();
  return (
    <Page title="Settings">
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <section aria-labelledby="set-theme" className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
          <h2 id="set-theme" className="mb-3 font-semibold">
            Theme
          </h2>
          <div role="radiogroup" aria-labelledby="set-theme" className="flex gap-2">
            {THEMES.map((t) => (
              <label key={t.value} className={`flex cursor-pointer items-center gap-1.5 rounded-md border px-3 py-1.5 text-sm ${theme === t.value ? "border-blue-500 bg-blue-50 dark:bg-slate-800" : "border-slate-300 dark:border-slate-700"}`}>
                <input type="radio" name="theme" value={t.value} checked={theme === t.value} onChange={() => setTheme(t.value)} />
                {t.label}
              </label>
            ))}
          </div>
        </section>
        <section aria-labelledby="set-pw" className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
          <h2 id="set-pw" className="mb-3 font-semibold">
            Password
          </h2>
          <p className="mb-3 text-xs text-slate-500">Signed in as {me?.userId}. Changing the password signs out your other browsers.</p>
          <PasswordForm />
        </section>
        {me?.isAdmin === true && (
          <section aria-labelledby="set-users" className="rounded-lg border border-slate-200 p-4 lg:col-span-2 dark:border-slate-800">
            <h2 id="set-users" className="mb-3 font-semibold">
              Users
            </h2>
            <UsersAdmin self={me.userId} />
          </section>
        )}
      </div>
    </Page>
  );
}
