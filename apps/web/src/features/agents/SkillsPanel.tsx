/**
 * The agent's skills: the installed ones (download as zip, uninstall), a zip upload (one
 * skill folder with its SKILL.md; a name already installed asks before replacing it), and
 * the builtin library in its groups with an install button each (installing again updates
 * the agent's copy from the library).
 */
import { createEffect, createMemo, createSignal, For, on, Show } from "solid-js";
import { importSkillArchive, installSkills, listInstalledSkills, listLibrary, skillArchiveUrl, uninstallSkill } from "../../api/agents";
import { ApiError, errorText } from "../../api/http";
import type { InstalledSkill, LibrarySkill } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { fileBase64 } from "../../lib/file-data";

function groupsOf(library: readonly LibrarySkill[]): { name: string; skills: LibrarySkill[] }[] {
  const groups = new Map<string, LibrarySkill[]>();
  for (const s of library) {
    const g = s.group ?? "Library";
    groups.set(g, [...(groups.get(g) ?? []), s]);
  }
  return [...groups].map(([name, skills]) => ({ name, skills }));
}

export function SkillsPanel(props: { projectId: string; agentId: string; readOnly: boolean }) {
  const [installed, setInstalled] = createSignal<InstalledSkill[] | undefined>(undefined);
  const [library, setLibrary] = createSignal<LibrarySkill[] | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [message, setMessage] = createSignal<string | undefined>(undefined);
  const [replace, setReplace] = createSignal<{ file: string; data: string; message: string } | undefined>(undefined);
  const [busy, setBusy] = createSignal<string | undefined>(undefined);
  let fileInput: HTMLInputElement | undefined;

  const load = () => {
    listInstalledSkills(props.projectId, props.agentId).then(setInstalled, (e: unknown) => {
      setInstalled([]);
      setError(errorText(e));
    });
    listLibrary().then(setLibrary, (e: unknown) => {
      setLibrary([]);
      setError(errorText(e));
    });
  };
  createEffect(on([() => props.projectId, () => props.agentId], load));

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
        await importSkillArchive(props.projectId, props.agentId, data, overwrite);
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

  const names = createMemo(() => new Set((installed() ?? []).map((s) => s.name)));
  return (
    <div class="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <section aria-labelledby="sk-installed" class="flex flex-col gap-2">
        <h3 id="sk-installed" class="text-sm font-semibold">
          Installed
        </h3>
        <Show when={installed()} fallback={<Spinner label="Loading skills" />}>
          {(list) => (
            <>
              <Show when={list().length === 0}>
                <p class="text-sm text-slate-500">No skills installed.</p>
              </Show>
              <ul class="flex flex-col gap-2">
                <For each={list()}>
                  {(s) => (
                    <li class="flex items-start gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
                      <div class="min-w-0 flex-1">
                        <div class="font-mono text-sm">{s.name}</div>
                        <Show when={s.description}>{(d) => <p class="text-xs text-slate-500">{d()}</p>}</Show>
                      </div>
                      <a href={skillArchiveUrl(props.projectId, props.agentId, s.name)} download="" class="rounded px-2 py-1 text-xs font-medium text-blue-700 hover:bg-slate-100 dark:text-blue-300 dark:hover:bg-slate-800" aria-label={`Download ${s.name} as zip`}>
                        Zip
                      </a>
                      <Show when={!props.readOnly}>
                        <Button
                          size="sm"
                          variant="danger"
                          aria-label={`Uninstall ${s.name}`}
                          onClick={() => {
                            if (window.confirm(`Uninstall ${s.name}?`))
                              void act(s.name, async () => {
                                await uninstallSkill(props.projectId, props.agentId, s.name);
                                return `Uninstalled ${s.name}.`;
                              });
                          }}
                        >
                          Uninstall
                        </Button>
                      </Show>
                    </li>
                  )}
                </For>
              </ul>
            </>
          )}
        </Show>
        <Show when={!props.readOnly}>
          <div class="flex flex-col gap-1">
            <div>
              <Button onClick={() => fileInput?.click()} disabled={busy() !== undefined}>
                Import a skill (.zip)…
              </Button>
            </div>
            <input
              ref={fileInput}
              type="file"
              accept=".zip,application/zip"
              class="hidden"
              aria-label="Skill zip file"
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = "";
                if (file !== undefined) void fileBase64(file).then((data) => upload(file.name, data, false));
              }}
            />
            <p class="text-xs text-slate-500">A zip holding one skill folder: &lt;name&gt;/SKILL.md and its files.</p>
          </div>
        </Show>
        <Show when={replace()}>
          {(r) => (
            <Notice tone="warning">
              <p>{r().message}</p>
              <div class="mt-2 flex gap-2">
                <Button size="sm" variant="danger" onClick={() => void upload(r().file, r().data, true)}>
                  Replace it
                </Button>
                <Button size="sm" onClick={() => setReplace(undefined)}>
                  Cancel
                </Button>
              </div>
            </Notice>
          )}
        </Show>
      </section>
      <section aria-labelledby="sk-library" class="flex flex-col gap-3">
        <h3 id="sk-library" class="text-sm font-semibold">
          Library
        </h3>
        <Show when={library()} fallback={<Spinner label="Loading the library" />}>
          {(lib) => (
            <For each={groupsOf(lib())} fallback={<p class="text-sm text-slate-500">The library is empty.</p>}>
              {(g) => (
                <div role="group" aria-label={g.name}>
                  <h4 class="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{g.name}</h4>
                  <ul class="flex flex-col gap-2">
                    <For each={g.skills}>
                      {(s) => (
                        <li class="flex items-start gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
                          <div class="min-w-0 flex-1">
                            <div class="font-mono text-sm">{s.name}</div>
                            <Show when={s.shortDescription ?? s.description}>{(d) => <p class="text-xs text-slate-500">{d()}</p>}</Show>
                          </div>
                          <Show when={!props.readOnly}>
                            <Button
                              size="sm"
                              disabled={busy() !== undefined}
                              aria-label={`${names().has(s.name) ? "Update" : "Install"} ${s.name}`}
                              onClick={() =>
                                void act(s.name, async () => {
                                  await installSkills(props.projectId, props.agentId, [s.name]);
                                  return `Installed ${s.name}.`;
                                })
                              }
                            >
                              {busy() === s.name ? "Installing…" : names().has(s.name) ? "Update" : "Install"}
                            </Button>
                          </Show>
                        </li>
                      )}
                    </For>
                  </ul>
                </div>
              )}
            </For>
          )}
        </Show>
      </section>
      <Show when={message()}>
        {(m) => (
          <Notice tone="success" class="lg:col-span-2">
            {m()}
          </Notice>
        )}
      </Show>
      <Show when={error()}>
        {(e) => (
          <Notice tone="error" class="lg:col-span-2">
            {e()}
          </Notice>
        )}
      </Show>
    </div>
  );
}
