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
 */
import { useState } from "react";
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

export function ModelForm({ projectId, entry, presets, modelPresets = [], onSave, onCancel }: ModelFormProps) {
  const [mode, setMode] = useState<"preset" | "custom">(entry === undefined && presets.length > 0 ? "preset" : "custom");
  const [provider, setProvider] = useState(entry?.provider ?? "");
  const [modelId, setModelId] = useState(entry?.modelId ?? "");
  const [displayName, setDisplayName] = useState(entry?.displayName ?? "");
  const [clientType, setClientType] = useState<ClientType | "">(entry?.clientType ?? "");
  const [baseUrl, setBaseUrl] = useState(entry?.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [removeKey, setRemoveKey] = useState(false);
  const [contextWindow, setContextWindow] = useState(str(entry?.contextWindow));
  const [maxTokens, setMaxTokens] = useState(str(entry?.maxTokens));
  const [vision, setVision] = useState(entry?.vision ?? false);
  const [cacheRead, setCacheRead] = useState(str(entry?.pricing?.cacheRead));
  const [cacheWrite, setCacheWrite] = useState(str(entry?.pricing?.cacheWrite));
  const [output, setOutput] = useState(str(entry?.pricing?.output));
  const [endpointModels, setEndpointModels] = useState<string[]>([]);
  const [info, setInfo] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState<"detect" | "list" | "save" | "vision" | undefined>(undefined);

  const urlChanged = entry !== undefined && (entry.baseUrl ?? "") !== baseUrl.trim();
  const keyLost = entry?.hasKey === true && urlChanged && apiKey === "";

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
  const catalogModels = modelPresets.filter((m) => m.provider === provider);

  const probeVision = async () => {
    if (clientType === "") return;
    setBusy("vision");
    setError(undefined);
    setInfo(undefined);
    try {
      const input: Parameters<typeof detectVision>[1] = { provider: provider.trim(), modelId: modelId.trim(), baseUrl: baseUrl.trim(), clientType };
      if (apiKey !== "") input.apiKey = apiKey;
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
      const found = await detectProtocol(projectId, baseUrl.trim(), apiKey === "" ? undefined : apiKey);
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
    if (clientType === "") return;
    setBusy("list");
    setError(undefined);
    try {
      const r = await listEndpointModels(projectId, baseUrl.trim(), clientType, apiKey === "" ? undefined : apiKey);
      setEndpointModels(r.models);
      if (r.models.length === 0) setError(r.error ?? "The endpoint listed no models.");
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const save = async () => {
    const input: ModelEntryInput = { provider: provider.trim(), modelId: modelId.trim() };
    if (clientType !== "") input.clientType = clientType;
    if (baseUrl.trim() !== "") input.baseUrl = baseUrl.trim();
    if (apiKey !== "") input.apiKey = apiKey;
    else if (removeKey) input.apiKey = null;
    const cw = numberOrUndefined(contextWindow);
    const mt = numberOrUndefined(maxTokens);
    if (cw !== undefined) input.contextWindow = Math.round(cw);
    if (mt !== undefined) input.maxTokens = Math.round(mt);
    if (displayName.trim() !== "") input.displayName = displayName.trim();
    if (vision || entry?.vision !== undefined) input.vision = vision;
    if (entry?.fastMode !== undefined) input.fastMode = entry.fastMode;
    const cr = numberOrUndefined(cacheRead);
    const cwr = numberOrUndefined(cacheWrite);
    const out = numberOrUndefined(output);
    if (cr !== undefined || cwr !== undefined || out !== undefined) {
      input.pricing = {};
      if (cr !== undefined) input.pricing.cacheRead = cr;
      if (cwr !== undefined) input.pricing.cacheWrite = cwr;
      if (out !== undefined) input.pricing.output = out;
    }
    setBusy("save");
    setError(undefined);
    try {
      await onSave(input);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };

  const valid = provider.trim() !== "" && modelId.trim() !== "" && clientType !== "" && baseUrl.trim() !== "";

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      className="flex flex-col gap-3"
      aria-label={entry === undefined ? "Add a model" : `Edit ${entry.provider}/${entry.modelId}`}
    >
      {entry === undefined && presets.length > 0 && (
        <div role="radiogroup" aria-label="How to add" className="flex gap-2">
          {(["preset", "custom"] as const).map((m) => (
            <label key={m} className={`flex cursor-pointer items-center gap-1 rounded-md border px-2 py-1 text-sm ${mode === m ? "border-blue-500 bg-blue-50 dark:bg-slate-800" : "border-slate-300 dark:border-slate-700"}`}>
              <input type="radio" name="add-mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
              {m === "preset" ? "From a preset" : "Custom endpoint"}
            </label>
          ))}
        </div>
      )}
      {entry === undefined && mode === "preset" && (
        <SelectField
          label="Provider preset"
          value={presets.some((p) => p.provider === provider) ? provider : ""}
          onValue={(v) => {
            const p = presets.find((x) => x.provider === v);
            if (p !== undefined) applyPreset(p);
          }}
          options={presets.map((p) => ({ value: p.provider, label: p.displayName }))}
        />
      )}
      {entry === undefined && mode === "preset" && catalogModels.length > 0 && (
        <SelectField
          label="Model from the catalog"
          value={catalogModels.some((m) => m.modelId === modelId) ? modelId : ""}
          onValue={(v) => {
            const m = catalogModels.find((x) => x.modelId === v);
            if (m !== undefined) applyModelPreset(m);
          }}
          options={catalogModels.map((m) => ({ value: m.modelId, label: `${m.displayName} (${m.modelId})` }))}
        />
      )}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField label="Provider" value={provider} onChange={(e) => setProvider(e.target.value)} required placeholder="e.g. deepseek" />
        <div className="flex flex-col gap-1">
          <TextField label="Model id" value={modelId} onChange={(e) => setModelId(e.target.value)} required list="endpoint-models" placeholder="e.g. deepseek-v4-flash" />
          <datalist id="endpoint-models">
            {endpointModels.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </div>
        <div className="flex items-end gap-2 sm:col-span-2">
          <TextField className="flex-1" label="Base URL" type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required placeholder="https://…" />
          <Button onClick={() => void detect()} disabled={baseUrl.trim() === "" || busy !== undefined}>
            {busy === "detect" ? "Detecting…" : "Detect"}
          </Button>
        </div>
        <SelectField label="Client type (wire protocol)" value={clientType} onValue={setClientType} options={CLIENT_TYPES.map((c) => ({ value: c, label: c }))} />
        <TextField
          label="API key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          placeholder={entry?.hasKey === true ? "A key is stored — leave empty to keep it" : "Optional for local servers"}
          hint={entry?.hasKey === true ? `Stored key: ${entry.apiKeyMask ?? "set"}` : undefined}
          error={keyLost ? "The base URL changed: type the key again (a key is only sent to its own endpoint)." : undefined}
        />
        {entry?.hasKey === true && apiKey === "" && <CheckboxField label="Remove the stored key" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} />}
        <div className="flex items-end gap-2 sm:col-span-2">
          <Button onClick={() => void fetchModels()} disabled={clientType === "" || baseUrl.trim() === "" || busy !== undefined}>
            {busy === "list" ? "Fetching…" : "Fetch model ids from the endpoint"}
          </Button>
          {endpointModels.length > 0 && <span className="text-xs text-slate-500">{endpointModels.length} ids: pick one in the Model id field</span>}
        </div>
        <TextField label="Display name" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        <TextField label="Context window (tokens)" inputMode="numeric" value={contextWindow} onChange={(e) => setContextWindow(e.target.value)} />
        <TextField label="Max output tokens" inputMode="numeric" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
        <div className="flex items-end gap-2 self-end">
          <CheckboxField label="Accepts images (vision)" checked={vision} onChange={(e) => setVision(e.target.checked)} />
          <Button size="sm" onClick={() => void probeVision()} disabled={!valid || busy !== undefined}>
            {busy === "vision" ? "Asking…" : "Detect vision"}
          </Button>
        </div>
      </div>
      <fieldset className="grid grid-cols-1 gap-3 rounded-md border border-slate-200 p-3 sm:grid-cols-3 dark:border-slate-800">
        <legend className="px-1 text-xs font-medium text-slate-600 dark:text-slate-300">Pricing, USD per million tokens</legend>
        <TextField label="Cached input" inputMode="decimal" value={cacheRead} onChange={(e) => setCacheRead(e.target.value)} />
        <TextField label="Uncached input" inputMode="decimal" value={cacheWrite} onChange={(e) => setCacheWrite(e.target.value)} />
        <TextField label="Output" inputMode="decimal" value={output} onChange={(e) => setOutput(e.target.value)} />
      </fieldset>
      {info !== undefined && <Notice tone="success">{info}</Notice>}
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!valid || busy !== undefined}>
          {busy === "save" ? "Saving…" : "Save model"}
        </Button>
      </div>
    </form>
  );
}
