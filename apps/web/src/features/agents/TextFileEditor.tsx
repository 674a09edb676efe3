/**
 * A plain-text editor for one agent file (system_config.yaml or AGENTS.md): a monospace
 * textarea, Save (the server validates and answers with the exact problem, shown here) and
 * an unsaved-changes marker. Read-only for project members who are not the owner.
 */
import { createSignal, Show } from "solid-js";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextAreaField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";

export function TextFileEditor(props: { label: string; value: string; saved: string; onChange(v: string): void; onSave(): Promise<void>; readOnly: boolean; hint?: string }) {
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [ok, setOk] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const dirty = () => props.value !== props.saved;
  const save = async () => {
    setBusy(true);
    setError(undefined);
    setOk(false);
    try {
      await props.onSave();
      setOk(true);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="flex flex-col gap-2">
      <TextAreaField
        label={`${props.label}${dirty() ? " (unsaved changes)" : ""}`}
        value={props.value}
        onValue={(v) => {
          setOk(false);
          props.onChange(v);
        }}
        readOnly={props.readOnly}
        rows={22}
        spellcheck={false}
        hint={props.hint}
        class="[&_textarea]:text-xs"
      />
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={ok() && !dirty()}>
        <Notice tone="success">Saved. New sessions use it.</Notice>
      </Show>
      <Show when={!props.readOnly}>
        <div class="flex gap-2">
          <Button variant="primary" disabled={!dirty() || busy()} onClick={() => void save()}>
            {busy() ? "Saving…" : "Save"}
          </Button>
          <Button disabled={!dirty() || busy()} onClick={() => props.onChange(props.saved)}>
            Discard changes
          </Button>
        </div>
      </Show>
    </div>
  );
}
