// The documented shape of .project_config.toml (project-config-schema.ts) against its parser:
// a file using every field parses (so the schema holds every field the parser reads), and the
// check the parser ends with refuses a field the schema does not describe, so a field added to
// the parser alone fails every parse that uses it instead of going undocumented.
import { describe, expect, it } from "vitest";
import { parseProjectConfig } from "../../src/state/project-config.js";
import { APPROVAL_MODES as DOCUMENTED_MODES, checkParsedProjectConfig } from "../../src/state/project-config-schema.js";
import { APPROVAL_MODES } from "../../src/approvals/modes.js";

const EVERY_FIELD = `
name = "p"
[default_model]
provider = "a"
model_id = "b"
[vision_model]
provider = "a"
model_id = "c"
[default_chat]
agent_id = "default_agent"
workspace = "/w"
approval_mode = "always-ask"
thinking_level = "high"
[command_policy]
enabled = false
[[command_policy.rules]]
name = "r"
pattern = "rm -rf"
description = "d"
enabled = true
[[models]]
provider = "a"
model_id = "b"
client_type = "anthropic-messages"
base_url = "http://127.0.0.1:1/v1"
api_key = "k"
keyless = false
context_window = 1000
max_tokens = 100
display_name = "n"
vision = true
fast_mode = true
[models.pricing]
unit = "usd_per_mtok"
cache_read = 0.1
cache_write = 1
output = 2
`;

describe("the .project_config.toml schema", () => {
  it("accepts what the parser reads from a file that sets every field", () => {
    const config = parseProjectConfig(EVERY_FIELD, "every.toml");
    expect(config.models[0]?.pricing).toEqual({ unit: "usd_per_mtok", cache_read: 0.1, cache_write: 1, output: 2 });
    expect(() => checkParsedProjectConfig(config)).not.toThrow();
  });

  it("documents the approval modes the approvals know", () => {
    expect([...DOCUMENTED_MODES].sort()).toEqual([...APPROVAL_MODES].sort());
  });

  it("refuses a parsed config with a field it does not describe", () => {
    const config = parseProjectConfig(EVERY_FIELD, "every.toml");
    const withNewField = { ...config, models: [{ ...config.models[0], new_field: 1 }] };
    expect(() => checkParsedProjectConfig(withNewField)).toThrow(/new_field/);
  });
});
