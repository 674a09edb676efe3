/**
 * The CLI's access to the read models: `<root>/projections.db`, caught up with the traces
 * before every read, so a session the CLI just ran (or one a server or the SDK ran) is in
 * the answer. Everything here is imported lazily by the commands that read projections:
 * Kysely, SQLite and the projection code cost `--help`, `run` and `chat` nothing.
 *
 * A running server keeps the same file current and may write it at the same moment; the
 * runner's checkpoints are compare-and-set, so the two never apply a line twice.
 *
 * A clustered root (servers on PostgreSQL, `PENGUIN_DATABASE_URL` set as for them) keeps its
 * read models in that database: the read commands open them there, not a `projections.db`
 * no server keeps current.
 */
import type { Projection, ProjectionStore } from "@penguin/projections-runner";

export async function allProjections(): Promise<Projection[]> {
  const [{ sessionsProjection }, { usageProjection }, { timelineProjection }] = await Promise.all([
    import("@penguin/projections-sessions"),
    import("@penguin/projections-usage"),
    import("@penguin/projections-timeline"),
  ]);
  return [sessionsProjection, usageProjection, timelineProjection];
}

/** The cluster's database when `PENGUIN_DATABASE_URL` names a PostgreSQL one (the servers' default for `--database`). */
export function clusterDatabase(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.PENGUIN_DATABASE_URL?.trim();
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url) ? url : undefined;
}

/** `database`: a postgres:// URL whose projections schema to open instead of `<root>/projections.db` (default: `clusterDatabase()`). */
export async function openProjections(root: string, database: string | undefined = clusterDatabase()): Promise<ProjectionStore> {
  const { ProjectionStore, projectionsFile } = await import("@penguin/projections-runner");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(root, { recursive: true });
  return ProjectionStore.open({ file: database ?? projectionsFile(root), root, projections: await allProjections() });
}

/** Opens the database, applies what the traces gained since the last read, and runs `read`. */
export async function readProjections<T>(root: string, read: (store: ProjectionStore) => Promise<T>): Promise<T> {
  const store = await openProjections(root);
  try {
    await store.catchUp();
    return await read(store);
  } finally {
    await store.close();
  }
}
