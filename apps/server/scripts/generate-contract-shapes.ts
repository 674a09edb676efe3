// Writes src/contract/web-shapes.generated.ts: the answers the web app decodes (src/http/web-shapes.ts)
// compiled to plain shapes. Run it after changing those schemas:
// `node --import tsx apps/server/scripts/generate-contract-shapes.ts`.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderWebShapesModule } from "../src/http/web-shapes.js";

const target = fileURLToPath(new URL("../src/contract/web-shapes.generated.ts", import.meta.url));
writeFileSync(target, renderWebShapesModule());
console.log(`wrote ${target}`);
