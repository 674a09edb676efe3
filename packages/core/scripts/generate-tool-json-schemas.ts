/**
 * `npm run generate --prefix packages/core`: writes src/environment/tool-json-schemas.generated.ts,
 * each builtin tool's JSON Schema as the model sees it, so a start reads a literal instead of
 * walking every tool's AST (catalog.ts). Run it after changing any tool's params.
 * `--check` (`npm run check --prefix packages/core`) writes nothing and exits 1 when the file is
 * stale; test/environment/tool-json-schemas.test.ts does the same in `npm test`. `--out <file>`
 * writes (or checks) another file instead, for that test.
 * The file is replaced atomically (temp file + rename), so an interrupted run leaves the old one.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeFileAtomic } from "../src/environment/atomic-write.js";
import { currentToolJsonSchemas } from "../src/environment/builtin-tool-params.js";
import { renderToolJsonSchemasModule } from "../src/environment/tool-json-schemas-render.js";

const { values } = parseArgs({ options: { check: { type: "boolean", default: false }, out: { type: "string" } } });
const target = values.out === undefined ? fileURLToPath(new URL("../src/environment/tool-json-schemas.generated.ts", import.meta.url)) : resolve(values.out);
const text = renderToolJsonSchemasModule(currentToolJsonSchemas());

if (values.check === true) {
  let onDisk: string | undefined;
  try {
    onDisk = readFileSync(target, "utf8");
  } catch {
    onDisk = undefined;
  }
  if (onDisk !== text) {
    process.stderr.write(`${target} is stale: run \`npm run generate --prefix packages/core\` and commit the result\n`);
    process.exitCode = 1;
  }
} else {
  await writeFileAtomic(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
