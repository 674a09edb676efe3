/**
 * Where the projections database lives: `<root>/projections.db`, beside the server's
 * `facts.db`. Derived data only, so it can be deleted at any time and rebuilt from the traces.
 */
import { join } from "node:path";

export const PROJECTIONS_DB = "projections.db";

export function projectionsFile(root: string): string {
  return join(root, PROJECTIONS_DB);
}
