// @penguin/omnimessage: the protocol every PenguinHarness part speaks. Its one runtime
// dependency is effect (the schemas); no Node APIs, so the web app imports it as-is.
export * from "./types.js";
export * from "./schema.js";
export * from "./guards.js";
export * from "./builders.js";
export * from "./aggregate.js";
export * from "./markers.js";
export * from "./raw-output.js";
// Compiling an effect/Schema to the plain shape the browser decoder reads (the server's HTTP contract uses it too).
export { shapeOf } from "./shape-of-schema.js";
