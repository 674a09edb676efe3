/**
 * The `yaml` package, loaded on the first call of `yaml()` instead of when parse-skill.ts is
 * evaluated. The CLI evaluates this package's modules on every start, while plain SKILL.md front
 * matter never reaches the parser (plain-front-matter.ts), so a static import made every
 * `penguin run` evaluate ~70 modules of yaml for nothing. parseSkillFile is synchronous, so the
 * load is a synchronous require: in the bundled CLI (CommonJS-shaped) esbuild turns the literal
 * `require("yaml")` into its bundled copy, evaluated at that call; in plain ES modules there is no
 * `require`, and createRequire loads the same CommonJS build `import "yaml"` resolves to.
 * (A twin of core's state/yaml-on-demand.ts: this package does not depend on core.)
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";

let loaded: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  loaded ??= typeof require === "function" ? (require("yaml") as typeof Yaml) : (createRequire(import.meta.url)("yaml") as typeof Yaml);
  return loaded;
}
