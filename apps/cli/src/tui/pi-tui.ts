/**
 * pi-tui, loaded once by `import()`: the CLI bundle keeps big third-party packages out of the
 * script every command parses (scripts/cli-build.mjs builds them apart, in vendor/, and allows
 * them only as dynamic imports). The terminal UI's files import pi-tui's types statically and
 * reach its values through `piTui()`, which `loadPiTui()` (awaited by runTuiChat first) fills.
 */
import type * as PiTui from "@mariozechner/pi-tui";

let loaded: typeof PiTui | undefined;

export async function loadPiTui(): Promise<typeof PiTui> {
  loaded ??= await import("@mariozechner/pi-tui");
  return loaded;
}

export function piTui(): typeof PiTui {
  if (loaded === undefined) throw new Error("the terminal UI library is not loaded: await loadPiTui() first");
  return loaded;
}
