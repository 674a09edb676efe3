/**
 * Building the full-table replace the server expects (`PUT P/models`) from the table as
 * shown plus one change: add or edit an entry, or remove one. Untouched entries are sent
 * without `apiKey`, so the server keeps their stored keys; an edited entry carries `apiKey`
 * only when the user typed a new one. Entries are keyed by the (provider, modelId) pair.
 */
import { inputOf } from "../../api/models";
import type { ModelEntry, ModelEntryInput } from "../../api/types";

const same = (a: { provider: string; modelId: string }, b: { provider: string; modelId: string }) => a.provider === b.provider && a.modelId === b.modelId;

/** The table with `edited` in place of `original` (or appended when new). */
export function withEntry(models: readonly ModelEntry[], edited: ModelEntryInput, original?: { provider: string; modelId: string }): ModelEntryInput[] {
  const out: ModelEntryInput[] = [];
  let placed = false;
  for (const m of models) {
    if (original !== undefined && same(m, original)) {
      out.push(edited);
      placed = true;
    } else if (!same(m, edited)) {
      out.push(inputOf(m));
    }
  }
  if (!placed) out.push(edited);
  return out;
}

export function withoutEntry(models: readonly ModelEntry[], ref: { provider: string; modelId: string }): ModelEntryInput[] {
  return models.filter((m) => !same(m, ref)).map(inputOf);
}

export interface ProviderGroup {
  provider: string;
  entries: ModelEntry[];
}

export function groupByProvider(models: readonly ModelEntry[]): ProviderGroup[] {
  const groups = new Map<string, ModelEntry[]>();
  for (const m of models) groups.set(m.provider, [...(groups.get(m.provider) ?? []), m]);
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([provider, entries]) => ({ provider, entries }));
}
