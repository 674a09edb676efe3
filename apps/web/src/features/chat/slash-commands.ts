/**
 * Slash commands in the composer: `/compact`, `/model [id]`, `/goal [budget] <objective>`
 * (the task runs as a goal; lib/stream/goal.ts splits off the budget) and `/<skill> [text]`
 * for the agent's installed skills. `slashMenu` lists what matches what is typed so far (the menu
 * shows while the first word is being typed); `parseSlash` decides what a sent text means.
 * An unknown `/word` is just text (people paste paths), so it is sent as written. A skill
 * command becomes a `[use_skills]` block (the protocol's marker) before the rest.
 */
import { wrapMarker } from "@penguin/omnimessage";
import { splitGoalArgs } from "../../lib/stream/goal";

export interface SlashItem {
  name: string;
  description: string;
  kind: "compact" | "model" | "goal" | "skill";
}

export type SlashCommand =
  | { kind: "compact" }
  | { kind: "model"; arg: string }
  | { kind: "goal"; budget: string | undefined; objective: string }
  | { kind: "skill"; name: string; rest: string };

const BUILTINS: SlashItem[] = [
  { name: "compact", description: "Compact the context now", kind: "compact" },
  { name: "goal", description: "Work on it in rounds until done: /goal [budget] objective", kind: "goal" },
  { name: "model", description: "Choose the model", kind: "model" },
];

export function slashItems(skills: readonly { name: string; description?: string | undefined }[]): SlashItem[] {
  return [...BUILTINS, ...skills.map((s) => ({ name: s.name, description: s.description ?? "Use this skill", kind: "skill" as const }))];
}

/** The menu entries for the text typed so far, or [] when no menu should show. */
export function slashMenu(text: string, items: readonly SlashItem[]): SlashItem[] {
  const m = /^\/([^\s]*)$/.exec(text);
  if (m === null) return [];
  const q = (m[1] ?? "").toLowerCase();
  return items.filter((i) => i.name.toLowerCase().startsWith(q)).slice(0, 8);
}

export function parseSlash(text: string, items: readonly SlashItem[]): SlashCommand | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (m === null) return undefined;
  const name = m[1] ?? "";
  const rest = (m[2] ?? "").trim();
  const item = items.find((i) => i.name === name);
  if (item === undefined) return undefined;
  if (item.kind === "compact") return { kind: "compact" };
  if (item.kind === "model") return { kind: "model", arg: rest };
  if (item.kind === "goal") return { kind: "goal", ...splitGoalArgs(rest) };
  return { kind: "skill", name, rest };
}

/** The text sent for `/<skill> rest`. */
export function skillPrompt(name: string, rest: string): string {
  const block = wrapMarker("use_skills", name);
  return rest === "" ? block : `${block}\n${rest}`;
}
