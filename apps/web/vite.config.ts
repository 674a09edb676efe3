/// <reference types="vitest/config" />
/**
 * Vite and Vitest configuration of the web app.
 *
 * - Build: SolidJS (vite-plugin-solid compiles JSX to fine-grained DOM updates) and Tailwind 4
 *   (its Vite plugin); the manifest is written so
 *   scripts/check-bundle-size.mjs can sum the initial JS (entry + static imports) and hold
 *   the 300 KB gzip budget. Pages and shiki languages are dynamic imports, so they stay out
 *   of that sum.
 * - `@penguin/omnimessage` resolves to its browser entry's TypeScript sources
 *   (packages/omnimessage/src/browser.ts), in the build and in tests alike: the same API, but
 *   envelopes are decoded by interpreting the schemas compiled to data rather than by
 *   effect/Schema, whose parser alone is about 55 KB gzip. Every import in the app, including
 *   ones added later, gets it; tsconfig.json maps the name the same way, so importing an
 *   effect-only export (the schemas) fails the typecheck instead of pulling effect back in.
 *   Sources, not dist, because a global `development` condition would also pick the debug
 *   builds of micromark and friends.
 * - Dev server: `/api` goes to a local PenguinHarness server (PENGUIN_SERVER, default
 *   127.0.0.1:7364), so ``npm run dev` in apps/web` works against `penguin serve`.
 * - Tests: jsdom, only `test/**` (the Playwright suite under e2e/ has its own config and
 *   is never part of `npm test`).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import solid from "vite-plugin-solid";
import tailwindcss from "@tailwindcss/vite";

const server = process.env.PENGUIN_SERVER ?? "http://127.0.0.1:7364";
const omnimessageBrowserSrc = fileURLToPath(new URL("../../packages/omnimessage/src/browser.ts", import.meta.url));
// The contract's answers compiled to plain shapes (apps/server/src/contract/web-shapes.ts): data only, from its source.
const contractShapesSrc = fileURLToPath(new URL("../server/src/contract/web-shapes.generated.ts", import.meta.url));
const omnimessageAlias = [
  { find: /^@penguin\/omnimessage$/, replacement: omnimessageBrowserSrc },
  { find: /^@penguin\/omnimessage\/browser$/, replacement: omnimessageBrowserSrc },
  { find: /^@penguin\/server\/contract-shapes$/, replacement: contractShapesSrc },
];

export default defineConfig(({ mode }) => ({
  plugins: [solid(), tailwindcss()],
  resolve:
    mode === "test"
      ? { conditions: ["development", "module", "browser", "solid"], alias: omnimessageAlias }
      : { alias: omnimessageAlias },
  build: {
    manifest: true,
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: { "/api": { target: server, changeOrigin: false } },
  },
  test: {
    name: "web",
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
    setupFiles: ["test/setup.ts"],
  },
}));
