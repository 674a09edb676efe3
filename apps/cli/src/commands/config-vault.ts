/**
 * `penguin config vault set|list|remove`: an agent's secrets (`agent_state/.vault.toml`,
 * 0600), which reach only the environment of the commands the agent runs, never the model.
 * Reads and writes go through core's vault module; `list` shows names with masked values.
 * `--value -` reads the secret from stdin so it stays out of the shell history.
 */
import { readVault, removeVaultValue, setVaultValue, VAULT_KEY } from "@penguin/core";
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { readAllStdin } from "../io/stdin.js";
import { maskSecret } from "../render/mask.js";
import { Output } from "../render/output.js";

interface VaultFlags {
  root?: string;
  projectId?: string;
  agentId?: string;
}

async function vaultFile(flags: VaultFlags): Promise<string> {
  const { agentPaths, resolveRoot, DEFAULT_AGENT, DEFAULT_PROJECT } = await import("@penguin/core");
  return agentPaths(resolveRoot(flags.root), flags.projectId ?? DEFAULT_PROJECT, flags.agentId ?? DEFAULT_AGENT).vault;
}

function checkKey(key: string): void {
  if (!VAULT_KEY.test(key)) throw new UsageError(`invalid vault key "${key}": use letters, digits and _ only, not starting with a digit (it becomes an environment variable name)`);
}

export async function vaultSet(flags: VaultFlags & { key: string; value: string }): Promise<ExitCode> {
  checkKey(flags.key);
  const value = flags.value === "-" ? (await readAllStdin()).replace(/\r?\n$/, "") : flags.value;
  const file = await vaultFile(flags);
  await setVaultValue(file, flags.key, value);
  Output.of(process.stdout).line(`set ${flags.key} in ${file}`);
  return EXIT.done;
}

export async function vaultList(flags: VaultFlags): Promise<ExitCode> {
  const file = await vaultFile(flags);
  const values = await readVault(file);
  const out = Output.of(process.stdout);
  const keys = Object.keys(values).sort();
  if (keys.length === 0) {
    out.line(`the vault is empty (${file})`);
    return EXIT.done;
  }
  const width = Math.max(...keys.map((k) => k.length));
  for (const key of keys) out.line(`${key.padEnd(width)}  ${maskSecret(values[key] ?? "")}`);
  return EXIT.done;
}

export async function vaultRemove(flags: VaultFlags & { key: string }): Promise<ExitCode> {
  checkKey(flags.key);
  const file = await vaultFile(flags);
  if (!(await removeVaultValue(file, flags.key))) throw new UsageError(`${flags.key} is not in the vault (${file}); nothing removed`);
  Output.of(process.stdout).line(`removed ${flags.key} from ${file}`);
  return EXIT.done;
}
