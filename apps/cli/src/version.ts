/**
 * The CLI's version, read from its own package.json at run time so `penguin --version` never
 * drifts from the published package. Sync and tiny: it runs on every `--version`.
 */
import { readFileSync } from "node:fs";

export function cliVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    if (typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string") return pkg.version;
  } catch {
    // fall through: a broken install still answers --version
  }
  return "unknown";
}
