/**
 * The generated reference pages: where their facts come from (the running code's commander
 * program, config schemas, OmniMessage schemas and the server's OpenAPI document), how they
 * are rendered, and the comparison with the pages committed under site/. Split into inputs →
 * pages → comparison so a test can change one input (an extra option, an extra field) and
 * see the comparison fail, without touching the real program.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Schema } from "effect";
import { buildProgram, EXIT } from "@penguin/cli";
import { ProjectConfigSchema, systemConfigSchema } from "@penguin/core";
import { OmniMessageSchema } from "@penguin/omnimessage/schema";
import { createServerApp, openApiDocument } from "@penguin/server";
import { cliReferencePage, commandsOf, type CliFacts } from "./reference/cli.js";
import { configFields, configReferencePage, type ConfigFacts } from "./reference/config.js";
import { eventFacts, eventReferencePage, type EventFacts } from "./reference/events.js";
import { httpReferencePage, httpRoutes, type HttpRoute } from "./reference/http.js";
import { REGENERATE_COMMAND, type Lang } from "./reference/markdown.js";

export const SITE_DIR = new URL("../site/", import.meta.url);

export interface ReferenceInputs {
  cli: CliFacts;
  config: ConfigFacts;
  events: EventFacts;
  http: HttpRoute[];
  /** How many routes the server's route table holds (the document has one operation per route). */
  routeTableSize: number;
}

/** The server's OpenAPI document, from a real app on a throwaway data root (no socket). */
async function serverOpenApi(): Promise<{ document: unknown; routeTableSize: number }> {
  const root = mkdtempSync(join(tmpdir(), "penguin-docs-openapi-"));
  try {
    const server = await createServerApp({ root, env: {}, schedules: false, generateTitles: false, sandbox: { enabled: false } });
    try {
      return { document: openApiDocument(server.routes, { title: "PenguinHarness server API", version: "docs" }), routeTableSize: server.routes.length };
    } finally {
      await server.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function referenceInputs(): Promise<ReferenceInputs> {
  const systemDefaults = Schema.decodeUnknownSync(systemConfigSchema())({ system_prompt: "" });
  const server = await serverOpenApi();
  return {
    cli: { program: buildProgram(() => undefined), exitCodes: EXIT },
    config: { system: configFields(systemConfigSchema(), systemDefaults), project: configFields(ProjectConfigSchema, undefined) },
    events: eventFacts(OmniMessageSchema),
    http: httpRoutes(server.document),
    routeTableSize: server.routeTableSize,
  };
}

const LANG_PREFIX: Record<Lang, string> = { en: "", zh: "zh/" };

/** Page path under site/ → its content, for both languages. */
export function referencePages(inputs: ReferenceInputs): Map<string, string> {
  const pages = new Map<string, string>();
  for (const lang of ["en", "zh"] as const) {
    const dir = `${LANG_PREFIX[lang]}reference/`;
    pages.set(`${dir}cli.md`, cliReferencePage(inputs.cli, lang));
    pages.set(`${dir}config.md`, configReferencePage(inputs.config, lang));
    pages.set(`${dir}events.md`, eventReferencePage(inputs.events, lang));
    pages.set(`${dir}http.md`, httpReferencePage(inputs.http, lang));
  }
  return pages;
}

/** What the generated references cover, for the report and the coverage test. */
export function referenceCounts(inputs: ReferenceInputs): Record<string, number> {
  const commands = commandsOf(inputs.cli.program);
  return {
    commands: commands.length,
    options: [inputs.cli.program, ...commands.map((c) => c.command)].reduce((n, c) => n + c.options.length, 0),
    exitCodes: Object.keys(inputs.cli.exitCodes).length,
    systemConfigFields: inputs.config.system.length,
    projectConfigFields: inputs.config.project.length,
    eventTypes: inputs.events.payloads.length,
    envelopeFamilies: inputs.events.families.length,
    httpRoutes: inputs.http.length,
  };
}

/** Pages whose committed text differs from `pages`, each with a message naming the page and the fix. */
export function stalePages(pages: ReadonlyMap<string, string>, siteDir: URL = SITE_DIR): string[] {
  const stale: string[] = [];
  for (const [path, expected] of pages) {
    let committed: string | undefined;
    try {
      committed = readFileSync(new URL(path, siteDir), "utf8");
    } catch {
      committed = undefined;
    }
    if (committed === expected) continue;
    const why = committed === undefined ? "is missing" : `differs from what the code generates (first difference at line ${firstDifferentLine(committed, expected)})`;
    stale.push(`apps/docs/site/${path} ${why}: run \`${REGENERATE_COMMAND}\` and commit the result`);
  }
  return stale;
}

function firstDifferentLine(a: string, b: string): number {
  const left = a.split("\n");
  const right = b.split("\n");
  for (let i = 0; i < Math.max(left.length, right.length); i++) if (left[i] !== right[i]) return i + 1;
  return 0;
}
