/**
 * The unified diff edit_file and write_file reply with, so the model (and the user) see
 * exactly what changed. The `Index:`/`===` preamble of the `diff` package is dropped; the
 * result starts at the `---`/`+++` lines, like `git diff` without its header. Workspace
 * paths get git's `a/` and `b/` prefixes; absolute ones are shown as they are.
 */
import { isAbsolute } from "node:path";
import { createTwoFilesPatch } from "diff";

export function unifiedDiff(shownPath: string, before: string, after: string, created = false): string {
  const side = (prefix: string): string => (isAbsolute(shownPath) ? shownPath : `${prefix}/${shownPath}`);
  const patch = createTwoFilesPatch(created ? "/dev/null" : side("a"), side("b"), before, after, undefined, undefined, {
    context: 3,
  });
  const start = patch.indexOf("--- ");
  return start === -1 ? patch : patch.slice(start);
}
