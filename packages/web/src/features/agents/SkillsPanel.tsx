/**
 * The agent's skills: the installed ones (uninstall), and the builtin library with install
 * buttons. A server that does not offer the library (501) is said so plainly.
 */
import { useEffect, useState } from "react";
import { installSkills, listInstalledSkills, listLibrary, uninstallSkill } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import type { InstalledSkill, LibrarySkill } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";

function explain(e: unknown, what: string): string {
  return e instanceof ApiError && e.status === 501 ? `This server does not support ${what} yet.` : errorText(e);
}

export function SkillsPanel({ projectId, agentId, readOnly }: { projectId: string; agentId: string; readOnly: boolean }) {
  const [installed, setInstalled] = useState<InstalledSkill[]>([]);
  const [library, setLibrary] = useState<LibrarySkill[]>([]);
  const [libraryError, setLibraryError] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const load = () => {
    listInstalledSkills(projectId, agentId).then(setInstalled, (e: unknown) => setError(errorText(e)));
    listLibrary().then(setLibrary, (e: unknown) => setLibraryError(explain(e, "the skill library")));
  };
  useEffect(load, [projectId, agentId]);

  const act = async (fn: () => Promise<unknown>, what: string) => {
    setError(undefined);
    try {
      await fn();
      load();
    } catch (e) {
      setError(explain(e, what));
    }
  };

  const names = new Set(installed.map((s) => s.name));
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <section aria-labelledby="sk-installed">
        <h3 id="sk-installed" className="mb-2 text-sm font-semibold">
          Installed
        </h3>
        {installed.length === 0 && <p className="text-sm text-slate-500">No skills installed.</p>}
        <ul className="flex flex-col gap-2">
          {installed.map((s) => (
            <li key={s.name} className="flex items-start gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
              <div className="min-w-0 flex-1">
                <div className="font-mono text-sm">{s.name}</div>
                {s.description !== undefined && <p className="text-xs text-slate-500">{s.description}</p>}
              </div>
              {!readOnly && (
                <Button size="sm" variant="danger" onClick={() => { if (window.confirm(`Uninstall ${s.name}?`)) void act(() => uninstallSkill(projectId, agentId, s.name), "uninstalling skills"); }}>
                  Uninstall
                </Button>
              )}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="sk-library">
        <h3 id="sk-library" className="mb-2 text-sm font-semibold">
          Library
        </h3>
        {libraryError !== undefined && <Notice>{libraryError}</Notice>}
        <ul className="flex flex-col gap-2">
          {library.map((s) => (
            <li key={s.name} className="flex items-start gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
              <div className="min-w-0 flex-1">
                <div className="font-mono text-sm">
                  {s.name} {s.group !== undefined && <span className="text-xs text-slate-500">· {s.group}</span>}
                </div>
                {s.description !== undefined && <p className="text-xs text-slate-500">{s.description}</p>}
              </div>
              {!readOnly && (
                <Button size="sm" disabled={names.has(s.name)} onClick={() => void act(() => installSkills(projectId, agentId, [s.name]), "installing skills")}>
                  {names.has(s.name) ? "Installed" : "Install"}
                </Button>
              )}
            </li>
          ))}
        </ul>
      </section>
      {error !== undefined && <Notice tone="error" className="lg:col-span-2">{error}</Notice>}
    </div>
  );
}
