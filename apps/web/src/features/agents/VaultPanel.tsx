/**
 * The agent's vault: secrets that reach tool processes as environment variables. Values are
 * shown masked and never come back; a field left empty keeps the stored value. Entries can
 * be added and removed; Save replaces the whole vault. When the system prompt lacks
 * `{{VAULT}}` the tab offers to add it (the model would not know the secrets' names).
 */
import { createEffect, createSignal, For, on, Show } from "solid-js";
import { createStore, produce } from "solid-js/store";
import { getVault, putVault } from "../../api/agents";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { PlaceholderOffer } from "./PlaceholderOffer";

interface Row {
  name: string;
  masked: string;
  value: string;
  stored: boolean;
}

export function VaultPanel(props: { projectId: string; agentId: string; readOnly: boolean; systemConfig: string; onConfig(text: string): void }) {
  // A store, so typing into one row updates that field in place (the row and its focus stay).
  const [rows, setRows] = createStore<Row[]>([]);
  const [loaded, setLoaded] = createSignal(false);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [saved, setSaved] = createSignal(false);

  const load = () =>
    getVault(props.projectId, props.agentId).then(
      (entries) => {
        setRows(entries.map((e) => ({ name: e.name, masked: e.value, value: "", stored: true })));
        setLoaded(true);
      },
      (e: unknown) => {
        setError(errorText(e));
        setLoaded(true);
      },
    );
  createEffect(on([() => props.projectId, () => props.agentId], () => void load()));

  const save = async () => {
    setError(undefined);
    setSaved(false);
    const values: Record<string, string | null> = {};
    for (const r of rows) {
      if (r.name.trim() === "") continue;
      values[r.name.trim()] = r.value === "" ? (r.stored ? null : "") : r.value;
    }
    try {
      await putVault(props.projectId, props.agentId, values);
      setSaved(true);
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="flex flex-col gap-3">
      <PlaceholderOffer projectId={props.projectId} agentId={props.agentId} section="vault" systemConfig={props.systemConfig} readOnly={props.readOnly} onConfig={(t) => props.onConfig(t)} what="the list of secret names" />
      <p class="text-sm text-slate-600 dark:text-slate-400">Secrets are passed to commands as environment variables. The model sees only their names.</p>
      <Show when={loaded()} fallback={<Spinner label="Loading the vault" />}>
        <Show when={rows.length === 0}>
          <p class="text-sm text-slate-500">The vault is empty.</p>
        </Show>
      </Show>
      <ul class="flex flex-col gap-2">
        <For each={rows}>
          {(r, i) => (
            <li class="flex flex-col gap-2 sm:flex-row sm:items-end">
              <TextField label="Name" value={r.name} readOnly={r.stored || props.readOnly} onValue={(v) => setRows(i(), "name", v)} class="sm:w-64" />
              <TextField
                label={r.stored ? `Value (stored: ${r.masked || "••••"})` : "Value"}
                type="password"
                autocomplete="off"
                value={r.value}
                readOnly={props.readOnly}
                placeholder={r.stored ? "Leave empty to keep" : ""}
                onValue={(v) => setRows(i(), "value", v)}
                class="flex-1"
              />
              <Show when={!props.readOnly}>
                <Button
                  variant="danger"
                  onClick={() =>
                    setRows(
                      produce((list) => {
                        list.splice(i(), 1);
                      }),
                    )
                  }
                  aria-label={`Remove ${r.name || "entry"}`}
                >
                  Remove
                </Button>
              </Show>
            </li>
          )}
        </For>
      </ul>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={saved()}>
        <Notice tone="success">Vault saved.</Notice>
      </Show>
      <Show when={!props.readOnly}>
        <div class="flex gap-2">
          <Button onClick={() => setRows(rows.length, { name: "", masked: "", value: "", stored: false })}>Add secret</Button>
          <Button variant="primary" onClick={() => void save()}>
            Save vault
          </Button>
        </div>
      </Show>
    </div>
  );
}
