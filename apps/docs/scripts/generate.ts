/**
 * `npm run generate --prefix apps/docs`: writes the reference pages (CLI, configuration,
 * events, HTTP; English and Chinese) under apps/docs/site from the code as it is now.
 * `--check` writes nothing and exits 1 naming every page that differs (the test in
 * apps/docs/test/generated.test.ts does the same in `npm test`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { referenceCounts, referenceInputs, referencePages, SITE_DIR, stalePages } from "./references.js";

const inputs = await referenceInputs();
const pages = referencePages(inputs);
if (process.argv.includes("--check")) {
  const stale = stalePages(pages);
  for (const line of stale) process.stderr.write(`${line}\n`);
  process.exitCode = stale.length === 0 ? 0 : 1;
} else {
  for (const [path, content] of pages) {
    const file = fileURLToPath(new URL(path, SITE_DIR));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  process.stdout.write(`wrote ${pages.size} reference pages: ${JSON.stringify(referenceCounts(inputs))}\n`);
}
