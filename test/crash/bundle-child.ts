// Builds the crash child (fixtures/crash-child.ts) into one ESM file, once per run, from the
// current sources (`development` condition, like the tests). A bundled child starts in about
// 0.2 s of CPU instead of about 1.2 s through tsx, and the crash suite starts one child per
// kill, so this is what keeps 200 kills inside the CI budget on 2 cores.
//
// esbuild comes in with tsx (a pinned dev dependency), not as a dependency of its own; when
// it cannot be loaded the suite falls back to running the child through tsx, only slower.
// The skills library finds its SKILL.md folder from its own `import.meta.url`, so that one
// module keeps its real URL inside the bundle.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const SOURCE = join(here, "fixtures/crash-child.ts");

/**
 * The argv prefix that runs the child: `[file]` for a bundle, `[--import, tsx, file]`
 * otherwise; `cleanup` removes the bundle.
 */
export async function childCommand(): Promise<{ args: string[]; bundled: boolean; cleanup: () => void }> {
  const require = createRequire(import.meta.url);
  let esbuild: typeof import("esbuild");
  try {
    esbuild = (await import(pathToFileURL(require.resolve("esbuild")).href)) as typeof import("esbuild");
  } catch {
    return { args: ["--conditions=development", "--import", require.resolve("tsx"), SOURCE], bundled: false, cleanup: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), "penguin-crash-child-"));
  const outfile = join(dir, "crash-child.mjs");
  await esbuild.build({
    entryPoints: [SOURCE],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["development"],
    logLevel: "error",
    // Bundled CommonJS dependencies still call require().
    banner: { js: "import { createRequire as __penguinRequire } from 'node:module'; const require = __penguinRequire(import.meta.url);" },
    plugins: [
      {
        name: "keep-module-url",
        setup(build) {
          build.onLoad({ filter: /[\\/]skills[\\/]src[\\/]library\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, "utf8").replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
            loader: "ts",
          }));
        },
      },
    ],
  });
  return { args: [outfile], bundled: true, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
