/**
 * The admin's user list: create a user (with a first password the admin passes on), set a
 * user's password (signs them out everywhere), delete a user (their projects pass to the
 * admin). The seeded admin and oneself cannot be deleted. The list is the cached query of
 * users-data.ts (preloaded by the route); while it loads a spinner stands in for it (its
 * own Suspense boundary, so the rest of the page stays), and a failed load says why.
 */
import { createSignal, For, Show, Suspense } from "solid-js";
import { createAsync } from "@solidjs/router";
import { createUser, deleteUser, resetUserPassword } from "../../api/auth";
import { errorText } from "../../api/http";
import type { AdminUser } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDateTime } from "../../lib/format";
import { getUsers, reloadUsers } from "./users-data";

export function UsersAdmin(props: { self: string }) {
  const [userId, setUserId] = createSignal("");
  const [password, setPassword] = createSignal("");
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [message, setMessage] = createSignal<string | undefined>(undefined);

  const users = createAsync(() =>
    getUsers().catch((e: unknown): AdminUser[] => {
      setError(errorText(e));
      return [];
    }),
  );

  const act = async (fn: () => Promise<unknown>, done: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      await fn();
      setMessage(done);
      await reloadUsers();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="flex flex-col gap-3">
      <Suspense fallback={<Spinner label="Loading users" />}>
        <Show when={users()}>
          {(list) => (
          <table class="w-full text-sm">
            <thead>
              <tr class="text-left text-xs text-slate-500">
                <th class="py-1">User</th>
                <th class="py-1">Role</th>
                <th class="hidden py-1 sm:table-cell">Created</th>
                <th class="py-1">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <For each={list()} fallback={<tr><td colSpan={4} class="py-2 text-slate-500">No users yet.</td></tr>}>
                {(u) => (
                  <tr class="border-t border-slate-200 dark:border-slate-800">
                    <td class="py-1.5">{u.userId}</td>
                    <td>
                      {u.isAdmin ? "admin" : "user"}
                      {u.passwordIsInitial ? " (initial password)" : ""}
                    </td>
                    <td class="hidden sm:table-cell">{formatDateTime(u.createdAt)}</td>
                    <td class="flex justify-end gap-1 py-1">
                      <Button
                        size="sm"
                        onClick={() => {
                          const pw = window.prompt(`New password for ${u.userId} (at least 8 characters)`);
                          if (pw !== null && pw !== "") void act(() => resetUserPassword(u.userId, pw), `Password of ${u.userId} set.`);
                        }}
                      >
                        Set password
                      </Button>
                      <Show when={u.userId !== props.self && u.userId !== "admin"}>
                        <Button
                          size="sm"
                          variant="danger"
                          onClick={() => {
                            if (window.confirm(`Delete ${u.userId}?`)) void act(() => deleteUser(u.userId), `${u.userId} deleted.`);
                          }}
                        >
                          Delete
                        </Button>
                      </Show>
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        )}
        </Show>
      </Suspense>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const id = userId().trim();
          void act(() => createUser(id, password()), `${id} created.`).then(() => {
            setUserId("");
            setPassword("");
          });
        }}
        class="flex flex-col gap-2 sm:flex-row sm:items-end"
      >
        <TextField label="New user id" value={userId()} onValue={setUserId} required pattern="[a-z][a-z0-9_]{1,31}" hint="lowercase letters, digits, _" />
        <TextField label="First password" type="password" autocomplete="new-password" value={password()} onValue={setPassword} required minLength={8} />
        <Button type="submit" variant="primary" disabled={userId() === "" || password().length < 8}>
          Create user
        </Button>
      </form>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={message()}>{(m) => <Notice tone="success">{m()}</Notice>}</Show>
    </div>
  );
}
