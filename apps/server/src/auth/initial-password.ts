/**
 * The seeded admin's first password and the file that keeps it until it is changed.
 *
 * The password is `penguin-xxxx-xxxx-xxxx-xxxx`: 16 characters from a 32-symbol alphabet
 * without look-alikes, 80 bits of entropy. The file `<root>/initial-admin-password` is
 * written 0600 (it is the only way to log in the first time), reprinted in the startup
 * notice on every start while the password is still the initial one, and deleted the moment
 * the admin sets their own.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** 32 symbols (no i, l, o, 1), so `byte & 31` picks one uniformly: 5 bits per character. */
export const PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz023456789";
export const INITIAL_PASSWORD_FILE = "initial-admin-password";

export function generateInitialPassword(): string {
  const bytes = randomBytes(16);
  let chars = "";
  for (const b of bytes) chars += PASSWORD_ALPHABET[b & 31];
  return `penguin-${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}-${chars.slice(12, 16)}`;
}

export function initialPasswordPath(root: string): string {
  return join(root, INITIAL_PASSWORD_FILE);
}

export function writeInitialPassword(root: string, password: string): void {
  const file = initialPasswordPath(root);
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readInitialPassword(root: string): string | undefined {
  try {
    const text = readFileSync(initialPasswordPath(root), "utf8").trim();
    return text === "" ? undefined : text;
  } catch {
    return undefined;
  }
}

export function deleteInitialPassword(root: string): void {
  rmSync(initialPasswordPath(root), { force: true });
}
