/**
 * A plain-text editor for one agent file (system_config.yaml or AGENTS.md): a monospace
 * textarea, Save (the server validates and answers with the exact problem, shown here) and
 * an unsaved-changes marker. Read-only for project members who are not the owner.
 */
import { useState } from "react";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextAreaField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";

export function TextFileEditor({ label, value, saved, onChange, onSave, readOnly, hint }: { label: string; value: string; saved: string; onChange(v: string): void; onSave(): Promise<void>; readOnly: boolean; hint?: string }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [ok, setOk] = useState(false);
  const [busy, setBusy] = useState(false);
  const dirty = value !== saved;
  const save = async () => {
    setBusy(true);
    setError(undefined);
    setOk(false);
    try {
      await onSave();
      setOk(true);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="flex flex-col gap-2">
      <TextAreaField label={`${label}${dirty ? " (unsaved changes)" : ""}`} value={value} onChange={(e) => { setOk(false); onChange(e.target.value); }} readOnly={readOnly} rows={22} spellCheck={false} hint={hint} className="[&_textarea]:text-xs" />
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {ok && !dirty && <Notice tone="success">Saved. New sessions use it.</Notice>}
      {!readOnly && (
        <div className="flex gap-2">
          <Button variant="primary" disabled={!dirty || busy} onClick={() => void save()}>
            {busy ? "Saving…" : "Save"}
          </Button>
          <Button disabled={!dirty || busy} onClick={() => onChange(saved)}>
            Discard changes
          </Button>
        </div>
      )}
    </div>
  );
}
