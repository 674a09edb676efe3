/**
 * The Models page: the project's model table grouped by provider. Per entry: edit, remove,
 * connection test, speed test (time to first token, tokens per second), and "make default"
 * / "use for vision" (the model describe_image asks about images for models without vision).
 * Per provider: a speed test of every entry in turn. Provider names and the add-from-preset
 * choices come from the server's catalog (`P/models/presets`), the one copy of it. Keys are
 * never shown, only whether one is stored. Members see the table; only the owner may change
 * it (the server enforces it; the page hides the controls).
 */
import { createEffect, createSignal, For, on, onCleanup, onMount, Show } from "solid-js";
import { createStore } from "solid-js/store";
import { errorText } from "../../api/http";
import { getPresets, putModels, setDefaultModel, setVisionModel, testModel } from "../../api/models";
import type { ModelEntry, ModelEntryInput, ModelRef, ModelTable, ModelTestResult, PresetCatalog } from "../../api/types";
import { Page } from "../../components/layout/Page";
import { Button } from "../../components/ui/Button";
import { Dialog } from "../../components/ui/Dialog";
import { LoadFailed } from "../../components/ui/LoadFailed";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDuration } from "../../lib/format";
import { canEditProject, project, reloadModels, retryProjectLoad } from "../../state/project-store";
import { groupByProvider, withEntry, withoutEntry } from "./model-table-edit";
import { ModelForm } from "./ModelForm";

const keyOf = (r: ModelRef) => `${r.provider}\u0000${r.modelId}`;
const isRef = (a: ModelRef | null, b: ModelRef) => a !== null && a.provider === b.provider && a.modelId === b.modelId;

type TestState = { running: "test" | "speed" } | { result: ModelTestResult; kind: "test" | "speed" };

export default function ModelsPage() {
  const editable = () => canEditProject(project.projects, project.projectId);
  const [editing, setEditing] = createSignal<ModelEntry | "new" | undefined>(undefined);
  const [tests, setTests] = createStore<Record<string, TestState>>({});
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [message, setMessage] = createSignal<string | undefined>(undefined);
  const [catalog, setCatalog] = createSignal<PresetCatalog>({ providers: [], models: [] });

  onMount(() => void reloadModels());

  createEffect(
    on(
      () => project.projectId,
      (projectId) => {
        if (projectId === undefined) return;
        let live = true;
        getPresets(projectId).then(
          (c) => live && setCatalog(c),
          () => undefined,
        );
        onCleanup(() => (live = false));
      },
    ),
  );

  return (
    <Show
      when={project.projectId !== undefined && project.models !== undefined ? { projectId: project.projectId, models: project.models } : undefined}
      fallback={
        <Page title="Models">
          <Show when={project.error === undefined} fallback={<LoadFailed what="the models" onRetry={retryProjectLoad} />}>
            <Spinner label="Loading models" />
          </Show>
        </Page>
      }
    >
      {(ready) => <ModelTableView projectId={ready().projectId} models={ready().models} />}
    </Show>
  );

  function ModelTableView(props: { projectId: string; models: ModelTable }) {
    const save = async (input: ModelEntryInput, original?: ModelEntry) => {
      await putModels(props.projectId, withEntry(props.models.models, input, original));
      await reloadModels();
      setEditing(undefined);
      setMessage(`Saved ${input.provider}/${input.modelId}.`);
    };

    const remove = async (e: ModelEntry) => {
      if (!window.confirm(`Remove ${e.provider}/${e.modelId}?`)) return;
      try {
        await putModels(props.projectId, withoutEntry(props.models.models, e));
        await reloadModels();
      } catch (err) {
        setError(errorText(err));
      }
    };

    const run = async (e: ModelEntry, kind: "test" | "speed") => {
      const k = keyOf(e);
      setTests(k, { running: kind });
      try {
        const result = await testModel(props.projectId, { provider: e.provider, modelId: e.modelId, speed: kind === "speed" });
        setTests(k, { result, kind });
      } catch (err) {
        setTests(k, { result: { ok: false, error: errorText(err) }, kind });
      }
    };

    const setRole = async (e: ModelEntry, role: "default" | "vision") => {
      setError(undefined);
      try {
        if (role === "default") await setDefaultModel(props.projectId, e);
        else await setVisionModel(props.projectId, e);
        await reloadModels();
      } catch (err) {
        setError(role === "vision" ? `Could not set the vision model: ${errorText(err)}` : errorText(err));
      }
    };

    const groups = () => groupByProvider(props.models.models);

    return (
      <Page
        title="Models"
        actions={
          <Show when={editable()}>
            <Button variant="primary" onClick={() => setEditing("new")}>
              Add model
            </Button>
          </Show>
        }
      >
        <Show when={error()}>{(text) => <Notice tone="error">{text()}</Notice>}</Show>
        <Show when={message()}>{(text) => <Notice tone="success">{text()}</Notice>}</Show>
        <Show when={!editable()}>
          <Notice>Only the project owner can change models.</Notice>
        </Show>
        <Show when={groups().length === 0}>
          <Notice>No models yet. Add one from a preset or point one at any compatible endpoint.</Notice>
        </Show>
        <For each={groups()}>
          {(g) => (
            <section aria-labelledby={`grp-${g.provider}`} class="rounded-lg border border-slate-200 dark:border-slate-800">
              <header class="flex items-center gap-2 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
                <h2 id={`grp-${g.provider}`} class="flex-1 font-semibold">
                  {catalog().providers.find((p) => p.provider === g.provider)?.displayName ?? g.provider}
                </h2>
                <Show when={editable()}>
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
                </Show>
              </header>
              <ul class="divide-y divide-slate-200 dark:divide-slate-800">
                <For each={g.entries}>
                  {(e) => {
                    const t = () => tests[keyOf(e)];
                    const testing = () => {
                      const state = t();
                      return state !== undefined && "running" in state;
                    };
                    return (
                      <li class="flex flex-col gap-2 px-3 py-2 md:flex-row md:items-center">
                        <div class="min-w-0 flex-1">
                          <div class="flex flex-wrap items-center gap-2">
                            <span class="font-medium">{e.displayName ?? e.modelId}</span>
                            <span class="font-mono text-xs text-slate-500">{e.modelId}</span>
                            <Show when={isRef(props.models.defaultModel, e)}>
                              <span class="rounded bg-blue-100 px-1.5 text-xs text-blue-800 dark:bg-blue-900 dark:text-blue-100">default</span>
                            </Show>
                            <Show when={isRef(props.models.visionModel, e)}>
                              <span class="rounded bg-violet-100 px-1.5 text-xs text-violet-800 dark:bg-violet-900 dark:text-violet-100">vision</span>
                            </Show>
                          </div>
                          <div class="truncate text-xs text-slate-500">
                            {e.clientType ?? "?"} · {e.baseUrl ?? "no URL"} · {e.hasKey ? `key ${e.apiKeyMask ?? "set"}` : "no key"}
                            {e.contextWindow !== undefined ? ` · ${Math.round(e.contextWindow / 1000)}k context` : ""}
                            {e.pricing?.output !== undefined ? ` · $${e.pricing.output}/M out` : ""}
                          </div>
                          <Show when={t()}>{(state) => <TestLine state={state()} />}</Show>
                        </div>
                        <Show when={editable()}>
                          <div class="flex flex-wrap gap-1">
                            <Button size="sm" onClick={() => void run(e, "test")} disabled={testing()} aria-label={`Test ${e.modelId}`}>
                              Test
                            </Button>
                            <Button size="sm" onClick={() => void run(e, "speed")} disabled={testing()} aria-label={`Speed test ${e.modelId}`}>
                              Speed
                            </Button>
                            <Show when={!isRef(props.models.defaultModel, e)}>
                              <Button size="sm" onClick={() => void setRole(e, "default")} aria-label={`Make ${e.modelId} the default`}>
                                Make default
                              </Button>
                            </Show>
                            <Show when={e.vision === true && !isRef(props.models.visionModel, e)}>
                              <Button size="sm" onClick={() => void setRole(e, "vision")} aria-label={`Use ${e.modelId} for vision`}>
                                Use for vision
                              </Button>
                            </Show>
                            <Button size="sm" onClick={() => setEditing(e)} aria-label={`Edit ${e.modelId}`}>
                              Edit
                            </Button>
                            <Button size="sm" variant="danger" onClick={() => void remove(e)} aria-label={`Remove ${e.modelId}`}>
                              Remove
                            </Button>
                          </div>
                        </Show>
                      </li>
                    );
                  }}
                </For>
              </ul>
            </section>
          )}
        </For>
        <Show when={editing()} keyed>
          {(target) => (
            <Dialog title={target === "new" ? "Add a model" : `Edit ${target.provider}/${target.modelId}`} onClose={() => setEditing(undefined)} wide>
              <ModelForm
                projectId={props.projectId}
                presets={catalog().providers}
                modelPresets={catalog().models}
                onCancel={() => setEditing(undefined)}
                onSave={(input) => save(input, target === "new" ? undefined : target)}
                {...(target === "new" ? {} : { entry: target })}
              />
            </Dialog>
          )}
        </Show>
      </Page>
    );
  }
}

function TestLine(props: { state: TestState }) {
  return (
    <Show
      when={"result" in props.state ? props.state : undefined}
      fallback={<p class="text-xs text-slate-500">{"running" in props.state && props.state.running === "speed" ? "Measuring speed…" : "Testing…"}</p>}
    >
      {(done) => (
        <Show
          when={done().result.ok}
          fallback={
            <p role="alert" class="text-xs text-red-600 dark:text-red-400">
              Failed{done().result.status !== undefined ? ` (${done().result.status})` : ""}: {done().result.error ?? "no answer"}
            </p>
          }
        >
          <p role="status" class="text-xs text-green-700 dark:text-green-400">
            {done().kind === "speed" ? "Speed" : "Connection"} OK
            {done().result.ttftMs !== undefined ? ` · first token ${formatDuration(done().result.ttftMs ?? 0)}` : ""}
            {done().result.tps !== undefined ? ` · ${(done().result.tps ?? 0).toFixed(1)} tok/s` : ""}
          </p>
        </Show>
      )}
    </Show>
  );
}
