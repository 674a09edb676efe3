/**
 * The Models page: the project's model table grouped by provider. Per entry: edit, remove,
 * connection test, speed test (time to first token, tokens per second), and "make default"
 * / "use for vision" (the model describe_image asks about images for models without vision).
 * Per provider: a speed test of every entry in turn. Provider names and the add-from-preset
 * choices come from the server's catalog (`P/models/presets`), the one copy of it. Keys are
 * never shown, only whether one is stored. Members see the table; only the owner may change
 * it (the server enforces it; the page hides the controls).
 */
import { useEffect, useState } from "react";
import { errorText } from "../../api/http";
import { getPresets, putModels, setDefaultModel, setVisionModel, testModel } from "../../api/models";
import type { ModelEntry, ModelEntryInput, ModelRef, ModelTestResult, PresetCatalog } from "../../api/types";
import { Page } from "../../components/layout/Page";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDuration } from "../../lib/format";
import { canEditProject, useProject } from "../../state/project-store";
import { groupByProvider, withEntry, withoutEntry } from "./model-table-edit";
import { ModelForm } from "./ModelForm";

const keyOf = (r: ModelRef) => `${r.provider}\u0000${r.modelId}`;
const isRef = (a: ModelRef | null, b: ModelRef) => a !== null && a.provider === b.provider && a.modelId === b.modelId;

type TestState = { running: "test" | "speed" } | { result: ModelTestResult; kind: "test" | "speed" };

export default function ModelsPage() {
  const { projectId, projects, models, reloadModels } = useProject();
  const editable = canEditProject(projects, projectId);
  const [editing, setEditing] = useState<ModelEntry | "new" | undefined>(undefined);
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [catalog, setCatalog] = useState<PresetCatalog>({ providers: [], models: [] });

  useEffect(() => {
    void reloadModels();
  }, [reloadModels]);

  useEffect(() => {
    if (projectId === undefined) return;
    let live = true;
    getPresets(projectId).then(
      (c) => live && setCatalog(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [projectId]);

  if (projectId === undefined || models === undefined) {
    return (
      <Page title="Models">
        <Spinner label="Loading models" />
      </Page>
    );
  }

  const save = async (input: ModelEntryInput, original?: ModelEntry) => {
    await putModels(projectId, withEntry(models.models, input, original));
    await reloadModels();
    setEditing(undefined);
    setMessage(`Saved ${input.provider}/${input.modelId}.`);
  };

  const remove = async (e: ModelEntry) => {
    if (!window.confirm(`Remove ${e.provider}/${e.modelId}?`)) return;
    try {
      await putModels(projectId, withoutEntry(models.models, e));
      await reloadModels();
    } catch (err) {
      setError(errorText(err));
    }
  };

  const run = async (e: ModelEntry, kind: "test" | "speed") => {
    const k = keyOf(e);
    setTests((t) => ({ ...t, [k]: { running: kind } }));
    try {
      const result = await testModel(projectId, { provider: e.provider, modelId: e.modelId, speed: kind === "speed" });
      setTests((t) => ({ ...t, [k]: { result, kind } }));
    } catch (err) {
      setTests((t) => ({ ...t, [k]: { result: { ok: false, error: errorText(err) }, kind } }));
    }
  };

  const setRole = async (e: ModelEntry, role: "default" | "vision") => {
    setError(undefined);
    try {
      if (role === "default") await setDefaultModel(projectId, e);
      else await setVisionModel(projectId, e);
      await reloadModels();
    } catch (err) {
      setError(role === "vision" ? `Could not set the vision model: ${errorText(err)}` : errorText(err));
    }
  };

  const groups = groupByProvider(models.models);

  return (
    <Page
      title="Models"
      actions={
        editable && (
          <Button variant="primary" onClick={() => setEditing("new")}>
            Add model
          </Button>
        )
      }
    >
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {message !== undefined && <Notice tone="success">{message}</Notice>}
      {!editable && <Notice>Only the project owner can change models.</Notice>}
      {groups.length === 0 && <Notice>No models yet. Add one from a preset or point one at any compatible endpoint.</Notice>}
      {groups.map((g) => (
        <section key={g.provider} aria-labelledby={`grp-${g.provider}`} className="rounded-lg border border-slate-200 dark:border-slate-800">
          <header className="flex items-center gap-2 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
            <h2 id={`grp-${g.provider}`} className="flex-1 font-semibold">
              {catalog.providers.find((p) => p.provider === g.provider)?.displayName ?? g.provider}
            </h2>
            {editable && (
              <Button
                size="sm"
                onClick={() => {
                  void (async () => {
                    for (const e of g.entries) await run(e, "speed");
                  })();
                }}
              >
                Speed test all
              </Button>
            )}
          </header>
          <ul className="divide-y divide-slate-200 dark:divide-slate-800">
            {g.entries.map((e) => {
              const t = tests[keyOf(e)];
              return (
                <li key={keyOf(e)} className="flex flex-col gap-2 px-3 py-2 md:flex-row md:items-center">
                  <div className="min-w-0 flex-1">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-medium">{e.displayName ?? e.modelId}</span>
                      <span className="font-mono text-xs text-slate-500">{e.modelId}</span>
                      {isRef(models.defaultModel, e) && <span className="rounded bg-blue-100 px-1.5 text-xs text-blue-800 dark:bg-blue-900 dark:text-blue-100">default</span>}
                      {isRef(models.visionModel, e) && <span className="rounded bg-violet-100 px-1.5 text-xs text-violet-800 dark:bg-violet-900 dark:text-violet-100">vision</span>}
                    </div>
                    <div className="truncate text-xs text-slate-500">
                      {e.clientType ?? "?"} · {e.baseUrl ?? "no URL"} · {e.hasKey ? `key ${e.apiKeyMask ?? "set"}` : "no key"}
                      {e.contextWindow !== undefined ? ` · ${Math.round(e.contextWindow / 1000)}k context` : ""}
                      {e.pricing?.output !== undefined ? ` · $${e.pricing.output}/M out` : ""}
                    </div>
                    {t !== undefined && <TestLine state={t} />}
                  </div>
                  {editable && (
                    <div className="flex flex-wrap gap-1">
                      <Button size="sm" onClick={() => void run(e, "test")} disabled={t !== undefined && "running" in t} aria-label={`Test ${e.modelId}`}>
                        Test
                      </Button>
                      <Button size="sm" onClick={() => void run(e, "speed")} disabled={t !== undefined && "running" in t} aria-label={`Speed test ${e.modelId}`}>
                        Speed
                      </Button>
                      {!isRef(models.defaultModel, e) && (
                        <Button size="sm" onClick={() => void setRole(e, "default")} aria-label={`Make ${e.modelId} the default`}>
                          Make default
                        </Button>
                      )}
                      {e.vision === true && !isRef(models.visionModel, e) && (
                        <Button size="sm" onClick={() => void setRole(e, "vision")} aria-label={`Use ${e.modelId} for vision`}>
                          Use for vision
                        </Button>
                      )}
                      <Button size="sm" onClick={() => setEditing(e)} aria-label={`Edit ${e.modelId}`}>
                        Edit
                      </Button>
                      <Button size="sm" variant="danger" onClick={() => void remove(e)} aria-label={`Remove ${e.modelId}`}>
                        Remove
                      </Button>
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      ))}
      {editing !== undefined && (
        <Dialog title={editing === "new" ? "Add a model" : `Edit ${editing.provider}/${editing.modelId}`} onClose={() => setEditing(undefined)} wide>
          <ModelForm
            projectId={projectId}
            presets={catalog.providers}
            modelPresets={catalog.models}
            onCancel={() => setEditing(undefined)}
            onSave={(input) => save(input, editing === "new" ? undefined : editing)}
            {...(editing === "new" ? {} : { entry: editing })}
          />
        </Dialog>
      )}
    </Page>
  );
}

function TestLine({ state }: { state: TestState }) {
  if ("running" in state) return <p className="text-xs text-slate-500">{state.running === "speed" ? "Measuring speed…" : "Testing…"}</p>;
  const r = state.result;
  if (!r.ok) {
    return (
      <p role="alert" className="text-xs text-red-600 dark:text-red-400">
        Failed{r.status !== undefined ? ` (${r.status})` : ""}: {r.error ?? "no answer"}
      </p>
    );
  }
  return (
    <p role="status" className="text-xs text-green-700 dark:text-green-400">
      {state.kind === "speed" ? "Speed" : "Connection"} OK
      {r.ttftMs !== undefined ? ` · first token ${formatDuration(r.ttftMs)}` : ""}
      {r.tps !== undefined ? ` · ${r.tps.toFixed(1)} tok/s` : ""}
    </p>
  );
}
