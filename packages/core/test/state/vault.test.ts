// The vault file: a flat string table, written atomically with mode 0600; anything else in it
// is a ConfigError naming the file, line and key.
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readVault, removeVaultValue, setVaultValue, VAULT_KEY, writeVault } from "../../src/state/vault.js";
import { configErrorOf, tempDir } from "./helpers.js";

describe("vault", () => {
  it("reads a missing file as empty", async () => {
    expect(await readVault(join(await tempDir(), ".vault.toml"))).toEqual({});
  });

  it("round-trips values with quotes, newlines and unicode, in a 0600 file", async () => {
    const dir = await tempDir();
    const file = join(dir, "agent_state", ".vault.toml");
    const values = { TOKEN: 'a"b\\c', MULTI: "line1\nline2", _U: "密码 ✓", EMPTY: "" };
    await writeVault(file, values);
    expect(await readVault(file)).toEqual(values);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, "agent_state"))).toEqual([".vault.toml"]);
  });

  it("sets and removes single keys", async () => {
    const file = join(await tempDir(), ".vault.toml");
    await setVaultValue(file, "A", "1");
    await setVaultValue(file, "B", "2");
    await setVaultValue(file, "A", "3");
    expect(await readVault(file)).toEqual({ A: "3", B: "2" });
    expect(await removeVaultValue(file, "A")).toBe(true);
    expect(await removeVaultValue(file, "A")).toBe(false);
    expect(await readVault(file)).toEqual({ B: "2" });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("keeps 0600 when replacing a file that was world-readable", async () => {
    const file = join(await tempDir(), ".vault.toml");
    await writeFile(file, 'A = "1"\n', { mode: 0o644 });
    await setVaultValue(file, "B", "2");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("accepts only environment-variable keys", async () => {
    expect(["A", "_x", "KEY_2"].every((k) => VAULT_KEY.test(k))).toBe(true);
    expect(["2KEY", "a-b", "a.b", "", "a b"].some((k) => VAULT_KEY.test(k))).toBe(false);
    const file = join(await tempDir(), ".vault.toml");
    const err = await configErrorOf(() => setVaultValue(file, "bad-key", "v"));
    expect(err.detail).toMatchObject({ file, field: "bad-key" });
    await expect(readFile(file)).rejects.toThrow();
  });

  it("rejects a non-string value with the file, line and key", async () => {
    const file = join(await tempDir(), ".vault.toml");
    await writeFile(file, '# secrets\nA = "ok"\nPORT = 8080\n');
    const err = await configErrorOf(() => readVault(file));
    expect(err.message).toContain(`${file}, line 3, field "PORT"`);
  });

  it("rejects tables, bad keys and broken TOML", async () => {
    const file = join(await tempDir(), ".vault.toml");
    await writeFile(file, 'A = "1"\n[nested]\nB = "2"\n');
    expect((await configErrorOf(() => readVault(file))).detail).toMatchObject({ field: "nested", line: 2 });
    await writeFile(file, '"bad-key" = "1"\n');
    expect((await configErrorOf(() => readVault(file))).detail).toMatchObject({ field: "bad-key", line: 1 });
    await writeFile(file, 'A = "1"\nB = "unterminated\n');
    const broken = await configErrorOf(() => readVault(file));
    expect(broken.detail).toMatchObject({ file, line: 2 });
    expect(broken.message).toMatch(/not valid TOML/);
  });
});
