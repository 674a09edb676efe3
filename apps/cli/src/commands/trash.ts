/**
 * `penguin trash list` and `penguin trash purge [--older-than DAYS]`: the data root's trash of
 * deleted sessions (core's session-trash). The server moves a deleted session there and an
 * owner restores it in the web; purging is the only way anything in it is destroyed, and it
 * is the machine's admin's (whoever runs this on the data root). Everything here is imported
 * lazily by program.ts, so the command costs nothing to start the CLI.
 */
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../cli-error.js";
import { createJsonLines } from "../io/json-lines.js";
import { Output } from "../render/output.js";

export interface TrashFlags {
  root?: string;
  olderThan?: string;
  project?: string;
  json?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `--older-than DAYS`: a whole number of days, 0 or more. */
function olderThanMs(flags: TrashFlags): number | undefined {
  if (flags.olderThan === undefined) return undefined;
  if (!/^\d{1,5}$/.test(flags.olderThan)) throw new UsageError(`--older-than "${flags.olderThan}": give a whole number of days (0 or more), e.g. --older-than 30`);
  return Number(flags.olderThan) * DAY_MS;
}

function when(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16);
}

export async function trashList(flags: TrashFlags): Promise<ExitCode> {
  const { listTrash, resolveRoot } = await import("@penguin/core");
  const entries = listTrash(resolveRoot(flags.root), flags.project);
  if (flags.json === true) {
    const out = createJsonLines(process.stdout, () => undefined);
    for (const e of entries) out.write({ id: e.id, ...e.manifest, record: undefined });
    return EXIT.done;
  }
  const out = Output.of(process.stdout);
  if (entries.length === 0) out.line("the trash is empty");
  for (const e of entries) out.line(`${when(e.manifest.deletedAt)}  ${e.manifest.projectId}/${e.manifest.agentId}  ${e.id}  deleted by ${e.manifest.deletedBy ?? "?"}`);
  return EXIT.done;
}

export async function trashPurge(flags: TrashFlags): Promise<ExitCode> {
  const age = olderThanMs(flags);
  const { purgeTrash, resolveRoot } = await import("@penguin/core");
  const result = purgeTrash(resolveRoot(flags.root), { now: Date.now(), ...(age === undefined ? {} : { olderThanMs: age }) });
  if (flags.json === true) {
    createJsonLines(process.stdout, () => undefined).write(result);
    return EXIT.done;
  }
  const out = Output.of(process.stdout);
  for (const p of result.purged) out.line(`purged ${p.projectId}/${p.agentId}/${p.id} (deleted ${when(p.deletedAt)})`);
  out.line(`purged ${result.purged.length} deleted session${result.purged.length === 1 ? "" : "s"}, kept ${result.kept}${age === undefined ? "" : ` (deleted less than ${flags.olderThan} days ago)`}`);
  return EXIT.done;
}
