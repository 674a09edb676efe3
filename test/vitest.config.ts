// Root test configuration: one `npm test` runs every package's suite. Each package is a
// Vitest project; the `development` export condition makes workspace imports resolve to
// `src/`, so tests never need a build first.
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["development"] },
  ssr: { resolve: { conditions: ["development"] } },
  test: {
    projects: ["packages/*", "projections/*"],
  },
});
