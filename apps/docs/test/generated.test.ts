// The generated reference pages (CLI, configuration, events, HTTP; English and Chinese) must be
// what the code generates now: the pages are regenerated in memory from the live commander
// program, config schemas, OmniMessage schemas and a real server's OpenAPI document, and
// compared with the committed files. Then the check is shown to bite: an input with one more
// CLI option and one more config field makes it fail, naming the pages and the command.
import { Option as CommanderOption } from "commander";
import { Schema } from "effect";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultSystemConfig, parseProjectConfig, systemConfigSchema } from "@penguin/core";
import { EXIT } from "@penguin/cli";
import { configFields } from "../scripts/reference/config.js";
import { commandsOf } from "../scripts/reference/cli.js";
import { referenceCounts, referenceInputs, referencePages, stalePages, type ReferenceInputs } from "../scripts/references.js";

/** A .project_config.toml that sets every field the parser reads. */
const EVERY_PROJECT_FIELD = `
name = "p"
[default_model]
provider = "a"
model_id = "b"
[vision_model]
provider = "a"
model_id = "b"
[default_chat]
agent_id = "default_agent"
workspace = "/w"
approval_mode = "read-only"
thinking_level = "high"
[command_policy]
enabled = true
[[command_policy.rules]]
name = "r"
pattern = "rm"
description = "d"
enabled = false
[[models]]
provider = "a"
model_id = "b"
client_type = "openai-chat"
base_url = "http://127.0.0.1:1/v1"
api_key = "k"
keyless = false
context_window = 1
max_tokens = 1
display_name = "n"
vision = true
fast_mode = false
[models.pricing]
unit = "usd_per_mtok"
cache_read = 1
cache_write = 1
output = 1
`;

/** Dotted key paths of a parsed config; list items are `[]`. */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keyPaths(item, `${prefix}[]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    return [path, ...keyPaths(inner, path)];
  });
}

let inputs: ReferenceInputs;
beforeAll(async () => {
  inputs = await referenceInputs();
}, 60_000);

describe("the generated reference pages", () => {
  it("are what the code generates now (else: npm run generate --prefix apps/docs)", () => {
    expect(stalePages(referencePages(inputs))).toEqual([]);
  });

  it("fail the check when a CLI option or a config field is added and the pages are not regenerated", () => {
    const run = commandsOf(inputs.cli.program).find((c) => c.path === "run")?.command;
    expect(run).toBeDefined();
    run!.addOption(new CommanderOption("--fixture-flag <value>", "an option only this test adds"));
    const withField = Schema.Struct({ ...systemConfigSchema().fields, fixture_field: Schema.optional(Schema.String.annotations({ description: "a field only this test adds" })) });
    const changed: ReferenceInputs = { ...inputs, config: { ...inputs.config, system: configFields(withField, Schema.decodeUnknownSync(withField)({ system_prompt: "" })) } };
    const stale = stalePages(referencePages(changed));
    expect(stale.map((line) => line.split(" ")[0])).toEqual([
      "apps/docs/site/reference/cli.md",
      "apps/docs/site/reference/config.md",
      "apps/docs/site/zh/reference/cli.md",
      "apps/docs/site/zh/reference/config.md",
    ]);
    for (const line of stale) expect(line).toContain("run `npm run generate --prefix apps/docs` and commit the result");
    console.log(stale.join("\n"));
    // Leave the shared program as it was for the other tests.
    const options = run!.options as CommanderOption[];
    options.splice(options.findIndex((o) => o.long === "--fixture-flag"), 1);
  });

  it("cover every command, option, exit code, config field, event type and HTTP route of the code", () => {
    const counts = referenceCounts(inputs);
    const pages = referencePages(inputs);
    const cli = pages.get("reference/cli.md") ?? "";
    for (const { path, command } of commandsOf(inputs.cli.program)) {
      expect(cli).toContain(`## penguin ${path}\n`);
      for (const option of command.options) expect(cli, `${path} ${option.flags}`).toContain(`\`${option.flags.replaceAll("|", "\\|")}\``);
    }
    for (const code of Object.values(EXIT)) expect(cli).toContain(`| \`${code}\` |`);
    const config = pages.get("reference/config.md") ?? "";
    for (const field of [...inputs.config.system, ...inputs.config.project]) expect(config).toContain(`| \`${field.path}\` |`);
    // Checked against the parsers, not the walkers: every key of a new agent's config and of a
    // project config using every field is documented.
    const documented = (fields: readonly { path: string }[]) => fields.map((f) => f.path);
    for (const key of keyPaths(defaultSystemConfig("docs_agent"))) expect(documented(inputs.config.system)).toContain(key);
    for (const key of keyPaths(parseProjectConfig(EVERY_PROJECT_FIELD, "test.toml"))) expect(documented(inputs.config.project)).toContain(key);
    const events = pages.get("reference/events.md") ?? "";
    for (const payload of inputs.events.payloads) expect(events).toContain(`### ${payload.tag}\n`);
    const http = pages.get("reference/http.md") ?? "";
    for (const route of inputs.http) expect(http).toContain(`### ${route.method} ${route.path.replace(/\{([^}]+)\}/g, ":$1")}\n`);
    expect(inputs.http.length, "one documented operation per route of the server's table").toBe(inputs.routeTableSize);
    expect(counts.commands).toBeGreaterThan(20);
    expect(counts.httpRoutes).toBeGreaterThan(50);
    console.log(`reference counts: ${JSON.stringify(counts)}`);
  });
});
