/**
 * The signed-in frame: a top bar with the pages, the project switcher and the user, and
 * the routed page below filling the rest of the screen. The bar scrolls sideways on narrow
 * screens instead of wrapping, so a 390 px phone keeps one line of navigation.
 */
import type { ReactNode } from "react";
import { NavLink } from "react-router";
import { useAuth } from "../../state/auth-store";
import { useProject } from "../../state/project-store";
import { Icon } from "../ui/Icon";
import { SandboxNotice } from "./SandboxNotice";

const PAGES = [
  { to: "/chat", label: "Chat" },
  { to: "/models", label: "Models" },
  { to: "/agents", label: "Agents" },
  { to: "/usage", label: "Usage" },
  { to: "/traces", label: "Traces" },
  { to: "/settings", label: "Settings" },
];

export function AppShell({ children }: { children: ReactNode }) {
  const me = useAuth((s) => s.me);
  const signOut = useAuth((s) => s.signOut);
  const { projects, projectId, select } = useProject();
  return (
    <div className="flex h-full flex-col">
      <header className="flex items-center gap-2 border-b border-slate-200 bg-white px-2 dark:border-slate-800 dark:bg-slate-950">
        <span className="flex items-center gap-1 pr-1 text-sm font-semibold text-slate-800 dark:text-slate-100">
          <Icon name="penguin" className="h-5 w-5" />
          <span className="hidden sm:inline">Penguin</span>
        </span>
        <nav aria-label="Main" className="min-w-0 flex-1 overflow-x-auto">
          <ul className="flex">
            {PAGES.map((p) => (
              <li key={p.to}>
                <NavLink
                  to={p.to}
                  className={({ isActive }) =>
                    `block border-b-2 px-2.5 py-2.5 text-sm whitespace-nowrap ${isActive ? "border-blue-600 font-medium text-blue-700 dark:text-blue-300" : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"}`
                  }
                >
                  {p.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        {projects.length > 1 && (
          <label className="hidden items-center gap-1 text-xs sm:flex">
            <span className="text-slate-500">Project</span>
            <select
              value={projectId ?? ""}
              onChange={(e) => void select(e.target.value)}
              className="max-w-40 rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              {projects.map((p) => (
                <option key={p.projectId} value={p.projectId}>
                  {p.name ?? p.projectId}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="hidden text-xs text-slate-500 md:inline">{me?.userId}</span>
        <button type="button" onClick={() => void signOut()} className="rounded px-2 py-1 text-xs whitespace-nowrap text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800">
          Sign out
        </button>
      </header>
      <SandboxNotice />
      <div className="min-h-0 flex-1">{children}</div>
    </div>
  );
}
