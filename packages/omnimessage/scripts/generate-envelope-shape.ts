// Writes src/envelope-shape.generated.ts: OmniMessageSchema (src/schema.ts) compiled to the
// plain-data shape the browser decoder interprets (src/shape-decoder.ts). Run it after any
// change to the schemas: `npx --yes pnpm@10.34.8 --filter @penguin/omnimessage generate`. The omnimessage tests
// fail while the file is stale, so a schema change cannot reach the web app unchecked.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OmniMessageSchema } from "../src/schema.js";
import { renderEnvelopeShapeModule } from "../src/shape-of-schema.js";

const target = fileURLToPath(new URL("../src/envelope-shape.generated.ts", import.meta.url));
writeFileSync(target, renderEnvelopeShapeModule(OmniMessageSchema.ast));
console.log(`wrote ${target}`);
