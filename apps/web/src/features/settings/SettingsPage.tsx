/**
 * Settings: my password, the theme (light, dark, or follow the system), the current project's
 * approval mode for new sessions (owners change it), and for the admin the users of this
 * server (create, reset a password, delete), the workspace roots (where session workspaces may
 * be) and the MCP commands (which stdio MCP servers may run here).
 */
import { For, Show } from "solid-js";
import { Page } from "../../components/layout/Page";
import { auth } from "../../state/auth-store";
import { setTheme, theme, type Theme } from "../../state/theme-store";
import { PasswordForm } from "../auth/PasswordForm";
import { McpCommandsAdmin } from "./McpCommandsAdmin";
import { ProjectDefaultsSection } from "./ProjectDefaultsSection";
import { UsersAdmin } from "./UsersAdmin";
import { WorkspaceRootsAdmin } from "./WorkspaceRootsAdmin";

const THEMES: { value: Theme; label: string }[] = [
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
  { value: "system", label: "System" },
];

export default function SettingsPage() {
  return (
    <Page title="Settings">
      <div class="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <section aria-labelledby="set-theme" class="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
          <h2 id="set-theme" class="mb-3 font-semibold">
            Theme
          </h2>
          <div role="radiogroup" aria-labelledby="set-theme" class="flex gap-2">
            <For each={THEMES}>
              {(t) => (
                <label class={`flex cursor-pointer items-center gap-1.5 rounded-md border px-3 py-1.5 text-sm ${theme() === t.value ? "border-blue-500 bg-blue-50 dark:bg-slate-800" : "border-slate-300 dark:border-slate-700"}`}>
                  <input type="radio" name="theme" value={t.value} checked={theme() === t.value} onChange={() => setTheme(t.value)} />
                  {t.label}
                </label>
              )}
            </For>
          </div>
        </section>
        <section aria-labelledby="set-pw" class="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
          <h2 id="set-pw" class="mb-3 font-semibold">
            Password
          </h2>
          <p class="mb-3 text-xs text-slate-500">Signed in as {auth.me?.userId}. Changing the password signs out your other browsers.</p>
          <PasswordForm />
        </section>
        <ProjectDefaultsSection />
        <Show when={auth.me?.isAdmin === true && auth.me}>
          {(me) => (
            <section aria-labelledby="set-users" class="rounded-lg border border-slate-200 p-4 lg:col-span-2 dark:border-slate-800">
              <h2 id="set-users" class="mb-3 font-semibold">
                Users
              </h2>
              <UsersAdmin self={me().userId} />
            </section>
          )}
        </Show>
        <Show when={auth.me?.isAdmin === true}>
          <section aria-labelledby="set-roots" class="rounded-lg border border-slate-200 p-4 lg:col-span-2 dark:border-slate-800">
            <h2 id="set-roots" class="mb-3 font-semibold">
              Workspace roots
            </h2>
            <WorkspaceRootsAdmin />
          </section>
        </Show>
        <Show when={auth.me?.isAdmin === true}>
          <section aria-labelledby="set-mcp" class="rounded-lg border border-slate-200 p-4 lg:col-span-2 dark:border-slate-800">
            <h2 id="set-mcp" class="mb-3 font-semibold">
              MCP commands
            </h2>
            <McpCommandsAdmin />
          </section>
        </Show>
      </div>
    </Page>
  );
}
