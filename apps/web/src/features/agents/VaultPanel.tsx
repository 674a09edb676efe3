/**
 * The agent's vault: secrets that reach tool processes as environment variables. Values are
 * shown masked and never come back; a field left empty keeps the stored value. Entries can
 * be added and removed; Save replaces the whole vault. When the system prompt lacks
 * `{{VAULT}}` the tab offers to add it (the model would not know the secrets' names).
 */
import { useEffect, useState } from "react";
import { getVault, putVault } from "../../api/agents";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { PlaceholderOffer } from "./PlaceholderOffer";

interface Row {
  name: string;
  masked: string;
  value: string;
  stored: boolean;
}

export function VaultPanel({ projectId, agentId, readOnly, systemConfig, onConfig }: { projectId: string; agentId: string; readOnly: boolean; systemConfig: string; onConfig(text: string): void }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState(false);

  const load = () =>
    getVault(projectId, agentId).then(
      (entries) => setRows(entries.map((e) => ({ name: e.name, masked: e.value, value: "", stored: true }))),
      (e: unknown) => setError(errorText(e)),
    );
  useEffect(() => {
    void load();
  }, [projectId, agentId]); // `load` reads only these two

  const save = async () => {
    setError(undefined);
    setSaved(false);
    const values: Record<string, string | null> = {};
    for (const r of rows) {
      if (r.name.trim() === "") continue;
      values[r.name.trim()] = r.value === "" ? (r.stored ? null : "") : r.value;
    }
    try {
      await putVault(projectId, agentId, values);
      setSaved(true);
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const update = (i: number, patch: Partial<Row>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return (
    <div className="flex flex-col gap-3">
      <PlaceholderOffer projectId={projectId} agentId={agentId} section="vault" systemConfig={systemConfig} readOnly={readOnly} onConfig={onConfig} what="the list of secret names" />
      <p className="text-sm text-slate-600 dark:text-slate-400">Secrets are passed to commands as environment variables. The model sees only their names.</p>
      {rows.length === 0 && <p className="text-sm text-slate-500">The vault is empty.</p>}
      <ul className="flex flex-col gap-2">
        {rows.map((r, i) => (
          <li key={i} className="flex flex-col gap-2 sm:flex-row sm:items-end">
            <TextField label="Name" value={r.name} readOnly={r.stored || readOnly} onChange={(e) => update(i, { name: e.target.value })} className="sm:w-64" />
            <TextField
              label={r.stored ? `Value (stored: ${r.masked || "••••"})` : "Value"}
              type="password"
              autoComplete="off"
              value={r.value}
              readOnly={readOnly}
              placeholder={r.stored ? "Leave empty to keep" : ""}
              onChange={(e) => update(i, { value: e.target.value })}
              className="flex-1"
            />
            {!readOnly && (
              <Button variant="danger" onClick={() => setRows(rows.filter((_, j) => j !== i))} aria-label={`Remove ${r.name || "entry"}`}>
                Remove
              </Button>
            )}
          </li>
        ))}
      </ul>
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {saved && <Notice tone="success">Vault saved.</Notice>}
      {!readOnly && (
        <div className="flex gap-2">
          <Button onClick={() => setRows([...rows, { name: "", masked: "", value: "", stored: false }])}>Add secret</Button>
          <Button variant="primary" onClick={() => void save()}>
            Save vault
          </Button>
        </div>
      )}
    </div>
  );
}
