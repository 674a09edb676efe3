/**
 * Access to the recorded provider streams in `fixtures/provider-streams/` (one folder
 * per wire protocol, one JSON payload per line, no SSE framing) and their wrapping as SSE.
 *
 * The recordings are vendored in the repository at `<repo>/fixtures/provider-streams/` (with
 * their upstream license), located from this file so it works from src and dist alike, so a
 * fresh clone tests offline; `PENGUIN_FIXTURES_DIR` overrides the folder.
 * Wrapping follows the folder's README: Chat adds `data: [DONE]`, Anthropic and Responses name
 * each event after its payload's `type` (as the real APIs do), Gemini sends bare `data:` lines.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isRecord, parseJson, stringField } from "./json.js";
import { WIRE_PROTOCOLS, type WireProtocol } from "./script.js";
import { formatSse } from "./sse.js";

export const FIXTURES_ENV = "PENGUIN_FIXTURES_DIR";
const FIXTURE_SUFFIX = ".chunks.txt";

/** The fixtures folder; throws naming the env override when it does not exist. */
export function fixturesDir(): string {
  const fromEnv = process.env[FIXTURES_ENV];
  const dir = fromEnv !== undefined && fromEnv !== "" ? fromEnv : fileURLToPath(new URL("../../../fixtures/provider-streams/", import.meta.url));
  if (!existsSync(dir)) throw new Error(`testkit: fixtures folder not found at ${dir}; set ${FIXTURES_ENV} to its path`);
  return dir;
}

/** Fixture names (`<protocol>/<file>.chunks.txt`), sorted; only one protocol's when given. */
export function listFixtures(protocol?: WireProtocol): string[] {
  const dir = fixturesDir();
  const folders = protocol === undefined ? WIRE_PROTOCOLS : [protocol];
  return folders
    .filter((folder) => existsSync(join(dir, folder)))
    .flatMap((folder) =>
      readdirSync(join(dir, folder))
        .filter((file) => file.endsWith(FIXTURE_SUFFIX))
        .map((file) => `${folder}/${file}`),
    )
    .sort();
}

/**
 * The absolute path of a fixture given as an absolute path, a name relative to the fixtures
 * folder (`gemini/google-text.chunks.txt`) or a bare file name (`google-text.chunks.txt`).
 */
export function fixturePath(name: string): string {
  if (isAbsolute(name)) {
    if (existsSync(name)) return name;
    throw new Error(`testkit: fixture not found: ${name}`);
  }
  const dir = fixturesDir();
  const direct = join(dir, name);
  if (existsSync(direct)) return direct;
  const byFile = listFixtures().find((listed) => basename(listed) === basename(name));
  if (byFile !== undefined) return join(dir, byFile);
  throw new Error(`testkit: fixture "${name}" is not in ${dir}; listFixtures() names the ones that are`);
}

/** The protocol a fixture was recorded in, from its folder name; undefined if the folder is not one. */
export function fixtureProtocol(path: string): WireProtocol | undefined {
  const folder = basename(dirname(path));
  return WIRE_PROTOCOLS.find((protocol) => protocol === folder);
}

/** The fixture's text, exactly as stored. */
export function readFixture(name: string): string {
  return readFileSync(fixturePath(name), "utf8");
}

/** The payload lines of a fixture file (split on `\n`, blank lines skipped). */
export function fixtureLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

/** One SSE event text per payload line, plus Chat's `[DONE]`. */
export function fixtureEvents(text: string, protocol: WireProtocol): string[] {
  const named = protocol === "anthropic-messages" || protocol === "openai-responses";
  const events = fixtureLines(text).map((line) => formatSse({ ...(named ? eventName(line) : {}), data: line }));
  if (protocol === "openai-chat") events.push(formatSse({ data: "[DONE]" }));
  return events;
}

/** A fixture file's payload lines wrapped as the SSE body the provider sent. */
export function fixtureToSse(text: string, protocol: WireProtocol): string {
  return fixtureEvents(text, protocol).join("");
}

function eventName(line: string): { event?: string } {
  const payload = parseJson(line);
  const type = isRecord(payload) ? stringField(payload, "type") : undefined;
  return type === undefined ? {} : { event: type };
}

