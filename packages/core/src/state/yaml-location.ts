/**
 * Where a YAML problem is, in lines a user can jump to.
 *
 * `lineOfPath` walks a parsed document along a field path (`["model", "max_tokens"]`,
 * `["tools", "mcpServers", 0, "name"]`) and returns the 1-based line of the deepest key or
 * item that exists, so a missing nested field is still reported at its parent's line.
 * `yamlSyntaxError` turns the first parser error into a ConfigError with its line and column.
 */
import type { LineCounter, YAMLError } from "yaml";
import { yaml } from "./yaml-on-demand.js";
import { ConfigError } from "./config-error.js";

export function lineOfPath(contents: unknown, lineCounter: LineCounter, path: readonly PropertyKey[]): number | undefined {
  const { isMap, isNode, isScalar, isSeq } = yaml();
  let node: unknown = contents;
  let line: number | undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined || !isScalar(pair.key)) break;
      const offset = pair.key.range?.[0];
      if (offset !== undefined) line = lineCounter.linePos(offset).line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      const item: unknown = node.items[segment];
      if (!isNode(item)) break;
      const offset = item.range?.[0];
      if (offset !== undefined) line = lineCounter.linePos(offset).line;
      node = item;
    } else {
      break;
    }
  }
  return line;
}

/** `model.max_tokens`, `tools.mcpServers[0].name`. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, segment) => {
    if (typeof segment === "number") return `${out}[${segment}]`;
    return out === "" ? String(segment) : `${out}.${String(segment)}`;
  }, "");
}

export function yamlSyntaxError(file: string, error: YAMLError): ConfigError {
  const pos = error.linePos?.[0];
  return new ConfigError({
    file,
    ...(pos !== undefined ? { line: pos.line, column: pos.col } : {}),
    problem: `not valid YAML: ${error.message.split("\n")[0] ?? error.message}`,
    hint: "fix the syntax (indentation, quotes, a missing colon) and try again",
  });
}
