/**
 * parseSkillFile: SKILL.md text → SkillMeta, or a SkillFileError naming the file, the line and
 * the field.
 *
 * Front matter fields (SPEC §11):
 *   name                 optional; informational, the directory name wins
 *   description          required, non-empty; the one line the system prompt shows
 *   short_description    optional UI label;  short_description_zh  its Chinese twin
 *   preinstall           boolean, default true (false = never seeded into default_agent)
 *   version              integer >= 1, default 1
 *   updated              optional date string, kept as written
 * Unknown keys are ignored so newer skills still load on older harnesses; a key written
 * with no value (`version:`) counts as absent. Validation is by hand because the table is
 * flat and small, and each failure wants its own plain-words problem and line.
 * Plain front matter (plain-front-matter.ts) skips the YAML parser; whatever it cannot read
 * with certainty, and every invalid field, goes through the parser as before.
 */
import { basename, dirname, resolve } from "node:path";
import { yaml } from "./yaml-on-demand.js";
import { SKILL_DIR_NAME, type SkillMeta } from "./skill-meta.js";
import { SkillFileError } from "./skill-file-error.js";
import { splitFrontMatter, type FrontMatter } from "./front-matter.js";
import { plainFrontMatter } from "./plain-front-matter.js";

const FRONT_MATTER_HINT = "start SKILL.md with a block between two `---` lines holding at least `description: …`";

export function parseSkillFile(text: string, file: string): SkillMeta {
  const dir = resolve(dirname(file));
  const name = basename(dir);
  if (!SKILL_DIR_NAME.test(name)) {
    throw new SkillFileError({
      file,
      problem: `the skill directory name "${name}" is not allowed`,
      hint: "rename the folder using only letters, digits, _ and -",
    });
  }

  const fm = splitFrontMatter(text);
  if (fm === undefined) throw new SkillFileError({ file, line: 1, problem: "no front matter", hint: FRONT_MATTER_HINT });

  const plain = plainFrontMatter(fm.yaml);
  if (plain !== undefined) {
    const meta = metaOrUndefined(plain, name, dir);
    if (meta !== undefined) return meta;
  }
  return parseWithYaml(fm, file, name, dir);
}

/** The full parse: any front matter YAML allows, and each error with its line. */
export function parseWithYaml(fm: FrontMatter, file: string, name: string, dir: string): SkillMeta {
  const { isMap, isScalar, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(fm.yaml, { lineCounter, prettyErrors: true });
  const yamlError = doc.errors[0];
  if (yamlError !== undefined) {
    const pos = yamlError.linePos?.[0];
    throw new SkillFileError({
      file,
      ...(pos !== undefined ? { line: pos.line + fm.yamlLine - 1, column: pos.col } : {}),
      problem: `the front matter is not valid YAML: ${firstLine(yamlError.message)}`,
    });
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new SkillFileError({ file, line: fm.yamlLine, problem: "the front matter must be a mapping of `key: value` lines", hint: FRONT_MATTER_HINT });
  }

  const lineOf = (key: string): number | undefined => {
    if (!isMap(doc.contents)) return undefined;
    const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key);
    const offset = isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
    return offset === undefined ? undefined : lineCounter.linePos(offset).line + fm.yamlLine - 1;
  };
  const fail = (field: string, problem: string, hint?: string): never => {
    const line = lineOf(field);
    throw new SkillFileError({ file, ...(line !== undefined ? { line } : {}), field, problem, ...(hint !== undefined ? { hint } : {}) });
  };
  const data: unknown = doc.toJS();
  return metaOf(new Map(Object.entries(isRecord(data) ? data : {})), name, dir, fail);
}

/** The fast path's answer; undefined on any problem, so the full parse reports it with its line. */
function metaOrUndefined(fields: ReadonlyMap<string, unknown>, name: string, dir: string): SkillMeta | undefined {
  const declined = Symbol("declined");
  try {
    return metaOf(fields, name, dir, () => {
      throw declined;
    });
  } catch (e) {
    if (e === declined) return undefined;
    throw e;
  }
}

type Fail = (field: string, problem: string, hint?: string) => never;

/** The validated meta from the front matter's fields; `fail` reports a bad field. */
function metaOf(fields: ReadonlyMap<string, unknown>, name: string, dir: string, fail: Fail): SkillMeta {
  const value = (key: string): unknown => fields.get(key) ?? undefined;

  const optionalString = (key: string): string | undefined => {
    const v = value(key);
    if (v === undefined) return undefined;
    if (typeof v !== "string") return fail(key, `must be a string, got ${describe(v)}`);
    return v;
  };

  optionalString("name"); // type-checked only: the directory name is the identity
  const description = optionalString("description")?.trim();
  if (description === undefined || description === "") {
    return fail("description", "is missing or empty", "add `description:` saying in one or two sentences when the skill applies");
  }
  const shortDescription = optionalString("short_description");
  const shortDescriptionZh = optionalString("short_description_zh");
  const updated = optionalString("updated");

  const preinstallValue = value("preinstall");
  if (preinstallValue !== undefined && typeof preinstallValue !== "boolean") {
    fail("preinstall", `must be true or false, got ${describe(preinstallValue)}`);
  }
  const versionValue = value("version");
  if (versionValue !== undefined && !(typeof versionValue === "number" && Number.isInteger(versionValue) && versionValue >= 1)) {
    fail("version", `must be a whole number from 1 up, got ${describe(versionValue)}`);
  }

  return {
    name,
    description: oneLine(description),
    ...(shortDescription !== undefined ? { shortDescription } : {}),
    ...(shortDescriptionZh !== undefined ? { shortDescriptionZh } : {}),
    preinstall: preinstallValue !== false,
    version: typeof versionValue === "number" ? versionValue : 1,
    ...(updated !== undefined ? { updated } : {}),
    dir,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return `the text "${v}"`;
  if (typeof v === "object" && v !== null) return "a mapping";
  return String(v);
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** Descriptions are shown as one prompt line each. */
function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, " ");
}
