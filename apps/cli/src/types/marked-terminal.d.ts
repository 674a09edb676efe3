// Ambient types for marked-terminal 7 (it ships none): only the entry point the CLI uses.
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked";

  export function markedTerminal(options?: Record<string, unknown>, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
