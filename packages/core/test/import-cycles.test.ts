// No import circle inside packages/core/src: every relative `import`/`export … from` of every
// source file, `import type` included (a type circle still ties two modules to each other's
// shape, and the remedy is the same: a small type module both sides import), forms a graph
// that must have no cycle. Lazy `import()` calls are not edges: they load at call time, which
// is what they are there for. On failure the test prints each cycle as a path of files.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const srcDir = fileURLToPath(new URL("../src/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The files one source file imports or re-exports from, by relative specifier (`./x.js` → `x.ts`). */
function relativeImports(file: string, known: ReadonlySet<string>): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) ? statement.moduleSpecifier : undefined;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue;
    const base = resolve(dirname(file), specifier.text);
    const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
    const target = candidates.find((c) => known.has(c));
    if (target === undefined) throw new Error(`${relative(srcDir, file)} imports ${specifier.text}, which is no source file`);
    targets.push(target);
  }
  return targets;
}

/**
 * The cycles a depth-first search meets, one per back edge, each once (rotated to start at its
 * smallest node). A graph has a cycle exactly when such a search meets one: none found, none there.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        found.set(rotated.join(" → "), rotated);
      } else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (state.get(node) === undefined) visit(node);
  return [...found.values()];
}

describe("packages/core imports", () => {
  it("the cycle finder sees a planted circle", () => {
    const planted = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
    expect(findCycles(planted)).toEqual([["a", "b", "c"]]);
    expect(findCycles(new Map([["a", ["b"]], ["b", []]]))).toEqual([]);
  });

  it("form no circle, type imports included", () => {
    const files = sourceFiles(srcDir);
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, relativeImports(f, known)]));
    const cycles = findCycles(graph).map((cycle) => [...cycle, cycle[0]!].map((f) => relative(srcDir, f)).join(" → "));
    if (cycles.length > 0) console.error(`import circles in packages/core/src:\n  ${cycles.join("\n  ")}`);
    expect(cycles).toEqual([]);
  });
});
