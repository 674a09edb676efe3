/**
 * The agent's skills: the installed ones (download as zip, uninstall), a zip upload (one
 * skill folder with its SKILL.md; a name already installed asks before replacing it), and
 * the builtin library in its groups with an install button each (installing again updates
 * the agent's copy from the library).
 */
import { useEffect, useRef, useState } from "react";
import { importSkillArchive, installSkills, listInstalledSkills, listLibrary, skillArchiveUrl, uninstallSkill } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import type { InstalledSkill, LibrarySkill } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { fileBase64 } from "../../lib/file-data";

function groupsOf(library: readonly LibrarySkill[]): { name: string; skills: LibrarySkill[] }[] {
  const groups = new Map<string, LibrarySkill[]>();
  for (const s of library) {
    const g = s.group ?? "Library";
    groups.set(g, [...(groups.get(g) ?? []), s]);
  }
  return [...groups].map(([name, skills]) => ({ name, skills }));
}

export function SkillsPanel({ projectId, agentId, readOnly }: { projectId: string; agentId: string; readOnly: boolean }) {
  const [installed, setInstalled] = useState<InstalledSkill[]>([]);
  const [library, setLibrary] = useState<LibrarySkill[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [replace, setReplace] = useState<{ file: string; data: string; message: string } | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const fileRef = useRef<HTMLInputElement>(null);

  const load = () => {
    listInstalledSkills(projectId, agentId).then(setInstalled, (e: unknown) => setError(errorText(e)));
    listLibrary().then(setLibrary, (e: unknown) => setError(errorText(e)));
  };
  useEffect(load, [projectId, agentId]);

  const act = async (key: string, fn: () => Promise<string | undefined>) => {
    setError(undefined);
    setMessage(undefined);
    setBusy(key);
    try {
      setMessage(await fn());
      load();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const upload = (file: string, data: string, overwrite: boolean) =>
    act("upload", async () => {
      try {
        await importSkillArchive(projectId, agentId, data, overwrite);
        setReplace(undefined);
        return `Installed the skill from ${file}.`;
      } catch (e) {
        if (e instanceof ApiError && e.code === "already_exists") {
          setReplace({ file, data, message: e.message });
          return undefined;
        }
        throw e;
      }
    });

  const names = new Set(installed.map((s) => s.name));
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <section aria-labelledby="sk-installed" className="flex flex-col gap-2">
        <h3 id="sk-installed" className="text-sm font-semibold">
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
              <a href={skillArchiveUrl(projectId, agentId, s.name)} download className="rounded px-2 py-1 text-xs font-medium text-blue-700 hover:bg-slate-100 dark:text-blue-300 dark:hover:bg-slate-800" aria-label={`Download ${s.name} as zip`}>
                Zip
              </a>
              {!readOnly && (
                <Button size="sm" variant="danger" aria-label={`Uninstall ${s.name}`} onClick={() => { if (window.confirm(`Uninstall ${s.name}?`)) void act(s.name, async () => { await uninstallSkill(projectId, agentId, s.name); return `Uninstalled ${s.name}.`; }); }}>
                  Uninstall
                </Button>
              )}
            </li>
          ))}
        </ul>
        {!readOnly && (
          <div className="flex flex-col gap-1">
            <div>
              <Button onClick={() => fileRef.current?.click()} disabled={busy !== undefined}>
                Import a skill (.zip)…
              </Button>
            </div>
            <input ref={fileRef} type="file" accept=".zip,application/zip" className="hidden" aria-label="Skill zip file" onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = "";
              if (file !== undefined) void fileBase64(file).then((data) => upload(file.name, data, false));
            }} />
            <p className="text-xs text-slate-500">A zip holding one skill folder: &lt;name&gt;/SKILL.md and its files.</p>
          </div>
        )}
        {replace !== undefined && (
          <Notice tone="warning">
            <p>{replace.message}</p>
            <div className="mt-2 flex gap-2">
              <Button size="sm" variant="danger" onClick={() => void upload(replace.file, replace.data, true)}>
                Replace it
              </Button>
              <Button size="sm" onClick={() => setReplace(undefined)}>
                Cancel
              </Button>
            </div>
          </Notice>
        )}
      </section>
      <section aria-labelledby="sk-library" className="flex flex-col gap-3">
        <h3 id="sk-library" className="text-sm font-semibold">
          Library
        </h3>
        {groupsOf(library).map((g) => (
          <div key={g.name} role="group" aria-label={g.name}>
            <h4 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{g.name}</h4>
            <ul className="flex flex-col gap-2">
              {g.skills.map((s) => (
                <li key={s.name} className="flex items-start gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
                  <div className="min-w-0 flex-1">
                    <div className="font-mono text-sm">{s.name}</div>
                    {(s.shortDescription ?? s.description) !== undefined && <p className="text-xs text-slate-500">{s.shortDescription ?? s.description}</p>}
                  </div>
                  {!readOnly && (
                    <Button size="sm" disabled={busy !== undefined} aria-label={`${names.has(s.name) ? "Update" : "Install"} ${s.name}`} onClick={() => void act(s.name, async () => { await installSkills(projectId, agentId, [s.name]); return `Installed ${s.name}.`; })}>
                      {busy === s.name ? "Installing…" : names.has(s.name) ? "Update" : "Install"}
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </section>
      {message !== undefined && <Notice tone="success" className="lg:col-span-2">{message}</Notice>}
      {error !== undefined && <Notice tone="error" className="lg:col-span-2">{error}</Notice>}
    </div>
  );
}
