/**
 * The `yaml` package, loaded on the first call of `yaml()` instead of when a module that uses it
 * is evaluated. Core's barrel evaluates every module on every CLI start, and a warm `penguin run`
 * never parses YAML (system_config.yaml comes from the parse cache), so a static import made it pay
 * for evaluating ~70 modules of yaml and building its schema tags anyway.
 * The callers are synchronous APIs (parseSystemConfig, buildPlan, defaultSystemConfigYaml), so the
 * load is a synchronous require: in the bundled CLI (cli-script.js, CommonJS-shaped) esbuild turns
 * the literal `require("yaml")` into its bundled copy, evaluated at that call; in plain ES modules
 * (dist, tests) there is no `require`, and createRequire loads the CommonJS build that
 * `import "yaml"` also resolves to under Node: one instance either way.
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";

let loaded: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  loaded ??= typeof require === "function" ? (require("yaml") as typeof Yaml) : (createRequire(import.meta.url)("yaml") as typeof Yaml);
  return loaded;
}
