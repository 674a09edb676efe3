/**
 * Small file-system helpers shared by the state modules: "missing" is an expected answer when
 * reading optional state files, every other I/O error is not and propagates as is.
 */
import { lstat, readFile, writeFile } from "node:fs/promises";

export function isNotFound(e: unknown): boolean {
  return e instanceof Error && "code" in e && e.code === "ENOENT";
}

/** The file's text, or undefined when it does not exist. */
export async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Creates the file with this text unless it exists already; true when it was written. */
export async function writeIfMissing(file: string, text: string | (() => string)): Promise<boolean> {
  // A text that costs something to make (rendered YAML) comes as a function, made only when the file is missing.
  if (typeof text === "function" && (await pathExists(file))) return false;
  try {
    await writeFile(file, typeof text === "function" ? text() : text, { encoding: "utf8", flag: "wx" });
    return true;
  } catch (e) {
    if (e instanceof Error && "code" in e && e.code === "EEXIST") return false;
    throw e;
  }
}

async function pathExists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
