/**
 * Adding or editing one model entry.
 *
 * Two ways in for a new entry: from a provider preset (fills provider, base URL and client
 * type), or as a custom endpoint, where "Detect" asks the server which wire protocol the
 * URL speaks (`P/models/detect`) and fills the client type and the protocol root. "Fetch
 * models" lists the ids the endpoint serves. With a provider preset chosen, the catalog's
 * models of that provider (from the server: `GET P/models/presets`) can fill the model id,
 * name, limits, vision flag and prices in one pick. "Detect vision" sends a tiny image
 * through the server and sets the vision box from the answer.
 *
 * The key field is write-only: an existing key is never shown, only whether one is stored;
 * leaving the field empty keeps it (unless the base URL changes: a key is only ever sent to
 * its own endpoint, so a moved entry needs the key typed again, and the form says so).
 *
 * The entry and the presets are read once: the page mounts a fresh form per dialog.
 */
import { createSignal, For, Show } from "solid-js";
import { errorText } from "../../api/http";
import { detectProtocol, detectVision, listEndpointModels } from "../../api/models";
import { CLIENT_TYPES, type ClientType, type ModelEntry, type ModelEntryInput, type ModelPreset, type ProviderPreset } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { CheckboxField, SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";

export interface ModelFormProps {
  projectId: string;
  /** The entry being edited; undefined to add one. */
  entry?: ModelEntry;
  presets: readonly ProviderPreset[];
  /** The catalog's models, offered once a provider preset is chosen. */
  modelPresets?: readonly ModelPreset[];
  onSave(input: ModelEntryInput): Promise<void>;
  onCancel(): void;
}

function numberOrUndefined(s: string): number | undefined {
  if (s.trim() === "") return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

const str = (n: number | undefined) => (n === undefined ? "" : String(n));

export function ModelForm(props: ModelFormProps) {
  const entry = props.entry;
  const projectId = props.projectId;
  const [mode, setMode] = createSignal<"preset" | "custom">(entry === undefined && props.presets.length > 0 ? "preset" : "custom");
  const [provider, setProvider] = createSignal(entry?.provider ?? "");
  const [modelId, setModelId] = createSignal(entry?.modelId ?? "");
  const [displayName, setDisplayName] = createSignal(entry?.displayName ?? "");
  const [clientType, setClientType] = createSignal<ClientType | "">(entry?.clientType ?? "");
  const [baseUrl, setBaseUrl] = createSignal(entry?.baseUrl ?? "");
  const [apiKey, setApiKey] = createSignal("");
  const [removeKey, setRemoveKey] = createSignal(false);
  const [contextWindow, setContextWindow] = createSignal(str(entry?.contextWindow));
  const [maxTokens, setMaxTokens] = createSignal(str(entry?.maxTokens));
  const [vision, setVision] = createSignal(entry?.vision ?? false);
  const [cacheRead, setCacheRead] = createSignal(str(entry?.pricing?.cacheRead));
  const [cacheWrite, setCacheWrite] = createSignal(str(entry?.pricing?.cacheWrite));
  const [output, setOutput] = createSignal(str(entry?.pricing?.output));
  const [endpointModels, setEndpointModels] = createSignal<string[]>([]);
  const [info, setInfo] = createSignal<string | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [busy, setBusy] = createSignal<"detect" | "list" | "save" | "vision" | undefined>(undefined);

  const urlChanged = () => entry !== undefined && (entry.baseUrl ?? "") !== baseUrl().trim();
  const keyLost = () => entry?.hasKey === true && urlChanged() && apiKey() === "";

  const applyPreset = (p: ProviderPreset) => {
    setProvider(p.provider);
    setBaseUrl(p.baseUrl);
    setClientType(p.clientType);
    setEndpointModels([]);
  };

  const applyModelPreset = (m: ModelPreset) => {
    setModelId(m.modelId);
    setDisplayName(m.displayName);
    setBaseUrl(m.baseUrl);
    setClientType(m.clientType);
    setContextWindow(str(m.contextWindow));
    setMaxTokens(str(m.maxTokens));
    setVision(m.vision ?? false);
    setCacheRead(str(m.pricing?.cacheRead));
    setCacheWrite(str(m.pricing?.cacheWrite));
    setOutput(str(m.pricing?.output));
  };
  const catalogModels = () => (props.modelPresets ?? []).filter((m) => m.provider === provider());

  const probeVision = async () => {
    const client = clientType();
    if (client === "") return;
    setBusy("vision");
    setError(undefined);
    setInfo(undefined);
    try {
      const input: Parameters<typeof detectVision>[1] = { provider: provider().trim(), modelId: modelId().trim(), baseUrl: baseUrl().trim(), clientType: client };
      if (apiKey() !== "") input.apiKey = apiKey();
      const r = await detectVision(projectId, input);
      if (r.vision === null) setError(`Could not tell whether the model sees images: ${r.error ?? r.status}`);
      else {
        setVision(r.vision);
        setInfo(r.vision ? `The model sees images (it answered "${r.answer ?? ""}").` : `The model does not see images${r.answer !== undefined ? ` (it answered "${r.answer}")` : r.error !== undefined ? ` (${r.error})` : ""}.`);
      }
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const detect = async () => {
    setBusy("detect");
    setError(undefined);
    setInfo(undefined);
    try {
      const found = await detectProtocol(projectId, baseUrl().trim(), apiKey() === "" ? undefined : apiKey());
      if (found === undefined) {
        setError("No known protocol answered at this URL. Choose the client type yourself.");
      } else {
        setClientType(found.clientType);
        setBaseUrl(found.baseUrl);
        setInfo(`Detected ${found.clientType}.`);
      }
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const fetchModels = async () => {
    const client = clientType();
    if (client === "") return;
    setBusy("list");
    setError(undefined);
    try {
      const r = await listEndpointModels(projectId, baseUrl().trim(), client, apiKey() === "" ? undefined : apiKey());
      setEndpointModels(r.models);
      if (r.models.length === 0) setError(r.error ?? "The endpoint listed no models.");
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const save = async () => {
    const input: ModelEntryInput = { provider: provider().trim(), modelId: modelId().trim() };
    const client = clientType();
    if (client !== "") input.clientType = client;
    if (baseUrl().trim() !== "") input.baseUrl = baseUrl().trim();
    if (apiKey() !== "") input.apiKey = apiKey();
    else if (removeKey()) input.apiKey = null;
    const cw = numberOrUndefined(contextWindow());
    const mt = numberOrUndefined(maxTokens());
    if (cw !== undefined) input.contextWindow = Math.round(cw);
    if (mt !== undefined) input.maxTokens = Math.round(mt);
    if (displayName().trim() !== "") input.displayName = displayName().trim();
    if (vision() || entry?.vision !== undefined) input.vision = vision();
    if (entry?.fastMode !== undefined) input.fastMode = entry.fastMode;
    const cr = numberOrUndefined(cacheRead());
    const cwr = numberOrUndefined(cacheWrite());
    const out = numberOrUndefined(output());
    if (cr !== undefined || cwr !== undefined || out !== undefined) {
      input.pricing = {};
      if (cr !== undefined) input.pricing.cacheRead = cr;
      if (cwr !== undefined) input.pricing.cacheWrite = cwr;
      if (out !== undefined) input.pricing.output = out;
    }
    setBusy("save");
    setError(undefined);
    try {
      await props.onSave(input);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const valid = () => provider().trim() !== "" && modelId().trim() !== "" && clientType() !== "" && baseUrl().trim() !== "";
  const adding = entry === undefined;

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      class="flex flex-col gap-3"
      aria-label={entry === undefined ? "Add a model" : `Edit ${entry.provider}/${entry.modelId}`}
    >
      <Show when={adding && props.presets.length > 0}>
        <div role="radiogroup" aria-label="How to add" class="flex gap-2">
          <For each={["preset", "custom"] as const}>
            {(m) => (
              <label class={`flex cursor-pointer items-center gap-1 rounded-md border px-2 py-1 text-sm ${mode() === m ? "border-blue-500 bg-blue-50 dark:bg-slate-800" : "border-slate-300 dark:border-slate-700"}`}>
                <input type="radio" name="add-mode" value={m} checked={mode() === m} onChange={() => setMode(m)} />
                {m === "preset" ? "From a preset" : "Custom endpoint"}
              </label>
            )}
          </For>
        </div>
      </Show>
      <Show when={adding && mode() === "preset"}>
        <SelectField
          label="Provider preset"
          value={props.presets.some((p) => p.provider === provider()) ? provider() : ""}
          onValue={(v) => {
            const p = props.presets.find((x) => x.provider === v);
            if (p !== undefined) applyPreset(p);
          }}
          options={props.presets.map((p) => ({ value: p.provider, label: p.displayName }))}
        />
      </Show>
      <Show when={adding && mode() === "preset" && catalogModels().length > 0}>
        <SelectField
          label="Model from the catalog"
          value={catalogModels().some((m) => m.modelId === modelId()) ? modelId() : ""}
          onValue={(v) => {
            const m = catalogModels().find((x) => x.modelId === v);
            if (m !== undefined) applyModelPreset(m);
          }}
          options={catalogModels().map((m) => ({ value: m.modelId, label: `${m.displayName} (${m.modelId})` }))}
        />
      </Show>
      <div class="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField label="Provider" value={provider()} onValue={setProvider} required placeholder="e.g. deepseek" />
        <div class="flex flex-col gap-1">
          <TextField label="Model id" value={modelId()} onValue={setModelId} required list="endpoint-models" placeholder="e.g. deepseek-v4-flash" />
          <datalist id="endpoint-models">
            <For each={endpointModels()}>{(m) => <option value={m} />}</For>
          </datalist>
        </div>
        <div class="flex items-end gap-2 sm:col-span-2">
          <TextField class="flex-1" label="Base URL" type="url" value={baseUrl()} onValue={setBaseUrl} required placeholder="https://…" />
          <Button onClick={() => void detect()} disabled={baseUrl().trim() === "" || busy() !== undefined}>
            {busy() === "detect" ? "Detecting…" : "Detect"}
          </Button>
        </div>
        <SelectField label="Client type (wire protocol)" value={clientType()} onValue={setClientType} options={CLIENT_TYPES.map((c) => ({ value: c, label: c }))} />
        <TextField
          label="API key"
          type="password"
          autocomplete="off"
          value={apiKey()}
          onValue={setApiKey}
          placeholder={entry?.hasKey === true ? "A key is stored — leave empty to keep it" : "Optional for local servers"}
          hint={entry?.hasKey === true ? `Stored key: ${entry.apiKeyMask ?? "set"}` : undefined}
          error={keyLost() ? "The base URL changed: type the key again (a key is only sent to its own endpoint)." : undefined}
        />
        <Show when={entry?.hasKey === true && apiKey() === ""}>
          <CheckboxField label="Remove the stored key" checked={removeKey()} onChecked={setRemoveKey} />
        </Show>
        <div class="flex items-end gap-2 sm:col-span-2">
          <Button onClick={() => void fetchModels()} disabled={clientType() === "" || baseUrl().trim() === "" || busy() !== undefined}>
            {busy() === "list" ? "Fetching…" : "Fetch model ids from the endpoint"}
          </Button>
          <Show when={endpointModels().length > 0}>
            <span class="text-xs text-slate-500">{endpointModels().length} ids: pick one in the Model id field</span>
          </Show>
        </div>
        <TextField label="Display name" value={displayName()} onValue={setDisplayName} />
        <TextField label="Context window (tokens)" inputMode="numeric" value={contextWindow()} onValue={setContextWindow} />
        <TextField label="Max output tokens" inputMode="numeric" value={maxTokens()} onValue={setMaxTokens} />
        <div class="flex items-end gap-2 self-end">
          <CheckboxField label="Accepts images (vision)" checked={vision()} onChecked={setVision} />
          <Button size="sm" onClick={() => void probeVision()} disabled={!valid() || busy() !== undefined}>
            {busy() === "vision" ? "Asking…" : "Detect vision"}
          </Button>
        </div>
      </div>
      <fieldset class="grid grid-cols-1 gap-3 rounded-md border border-slate-200 p-3 sm:grid-cols-3 dark:border-slate-800">
        <legend class="px-1 text-xs font-medium text-slate-600 dark:text-slate-300">Pricing, USD per million tokens</legend>
        <TextField label="Cached input" inputMode="decimal" value={cacheRead()} onValue={setCacheRead} />
        <TextField label="Uncached input" inputMode="decimal" value={cacheWrite()} onValue={setCacheWrite} />
        <TextField label="Output" inputMode="decimal" value={output()} onValue={setOutput} />
      </fieldset>
      <Show when={info()}>{(text) => <Notice tone="success">{text()}</Notice>}</Show>
      <Show when={error()}>{(text) => <Notice tone="error">{text()}</Notice>}</Show>
      <div class="flex justify-end gap-2">
        <Button onClick={() => props.onCancel()}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!valid() || busy() !== undefined}>
          {busy() === "save" ? "Saving…" : "Save model"}
        </Button>
      </div>
    </form>
  );
}
