// @penguin/cli: the `penguin` command (bin: dist/main.js). The package's public surface is
// the command line; these exports are the pieces other hosts may reuse to render a stream.
export { EXIT, type ExitCode } from "./exit-codes.js";
export { HumanRenderer, type HumanRendererOptions } from "./render/human-renderer.js";
export { Output } from "./render/output.js";
export { buildProgram } from "./program.js";
