// The agent's checkpoints opened outside a session (what `penguin rewind`, `fork` and `replay`
// do) still know the vault: a workspace file holding a vault value, or its base64, inside
// random bytes that gzip would keep as they are, is sealed, never in plain text under the
// data root; it reads back exactly.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../helpers/harness.js";
import { setVaultValue } from "../../src/state/vault.js";
import { openCheckpoints } from "../../src/trace/workspace-files.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const CANARY = "canary-ckvault-8c2d5e1f";

describe("checkpoints opened by path", () => {
  it("seal a file holding a vault value (itself or base64) with the vault read from the agent's folder", async () => {
    h = await startHarness();
    await setVaultValue(h.agent.paths.vault, "DEPLOY_TOKEN", CANARY);
    const base64 = Buffer.from(CANARY).toString("base64");
    const binary = Buffer.concat([randomBytes(20_000), Buffer.from(CANARY), randomBytes(20_000)]);
    writeFileSync(join(h.workspace, "token.bin"), binary);
    writeFileSync(join(h.workspace, "token.b64"), `${base64}\n`);
    writeFileSync(join(h.workspace, "plain.txt"), "nothing secret\n");
    const taken = openCheckpoints(h.agent.paths, h.workspace).take()!;
    const stored = filesUnder(h.agent.paths.checkpointsDir);
    expect(stored.some((f) => f.endsWith(".pack"))).toBe(true);
    for (const f of stored) {
      const bytes = readFileSync(f);
      expect(bytes.includes(Buffer.from(CANARY)), f).toBe(false);
      expect(bytes.includes(Buffer.from(base64)), f).toBe(false);
    }
    const again = openCheckpoints(h.agent.paths, h.workspace);
    expect(again.read(taken.tree, "token.bin")!.bytes!.equals(binary)).toBe(true);
    expect(again.read(taken.tree, "token.b64")!.bytes!.toString()).toBe(`${base64}\n`);
  });
});
