/**
 * The admin's user list: create a user (with a first password the admin passes on), set a
 * user's password (signs them out everywhere), delete a user (their projects pass to the
 * admin). The seeded admin and oneself cannot be deleted.
 */
import { useEffect, useState } from "react";
import { createUser, deleteUser, listUsers, resetUserPassword } from "../../api/auth";
import { errorText } from "../../api/http";
import type { AdminUser } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { formatDateTime } from "../../lib/format";

export function UsersAdmin({ self }: { self: string }) {
  const [users, setUsers] = useState<AdminUser[]>([]);
  const [userId, setUserId] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);

  const reload = () =>
    listUsers().then(
      (u) => setUsers(u),
      (e: unknown) => setError(errorText(e)),
    );
  useEffect(() => {
    void reload();
  }, []);

  const act = async (fn: () => Promise<unknown>, done: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      await fn();
      setMessage(done);
      await reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <table className="w-full text-sm">
        <thead>
          <tr className="text-left text-xs text-slate-500">
            <th className="py-1">User</th>
            <th className="py-1">Role</th>
            <th className="hidden py-1 sm:table-cell">Created</th>
            <th className="py-1">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.userId} className="border-t border-slate-200 dark:border-slate-800">
              <td className="py-1.5">{u.userId}</td>
              <td>{u.isAdmin ? "admin" : "user"}{u.passwordIsInitial ? " (initial password)" : ""}</td>
              <td className="hidden sm:table-cell">{formatDateTime(u.createdAt)}</td>
              <td className="flex justify-end gap-1 py-1">
                <Button
                  size="sm"
                  onClick={() => {
                    const pw = window.prompt(`New password for ${u.userId} (at least 8 characters)`);
                    if (pw !== null && pw !== "") void act(() => resetUserPassword(u.userId, pw), `Password of ${u.userId} set.`);
                  }}
                >
                  Set password
                </Button>
                {u.userId !== self && u.userId !== "admin" && (
                  <Button
                    size="sm"
                    variant="danger"
                    onClick={() => {
                      if (window.confirm(`Delete ${u.userId}?`)) void act(() => deleteUser(u.userId), `${u.userId} deleted.`);
                    }}
                  >
                    Delete
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => createUser(userId.trim(), password), `${userId.trim()} created.`).then(() => {
            setUserId("");
            setPassword("");
          });
        }}
        className="flex flex-col gap-2 sm:flex-row sm:items-end"
      >
        <TextField label="New user id" value={userId} onChange={(e) => setUserId(e.target.value)} required pattern="[a-z][a-z0-9_]{1,31}" hint="lowercase letters, digits, _" />
        <TextField label="First password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required minLength={8} />
        <Button type="submit" variant="primary" disabled={userId === "" || password.length < 8}>
          Create user
        </Button>
      </form>
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {message !== undefined && <Notice tone="success">{message}</Notice>}
    </div>
  );
}
