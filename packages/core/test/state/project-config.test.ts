// .project_config.toml: strict parsing with errors that name the file, line and field; model
// references given whole or not at all, never inferred; atomic 0600 writes.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/state/config-error.js";
import { parseProjectConfig, readProjectConfig, removeModel, upsertModel, writeProjectConfig } from "../../src/state/project-config.js";
import { endpointOf, resolveModelEntry } from "../../src/state/model-resolution.js";
import { PenguinError } from "../../src/errors.js";

const FILE = "/data/default_project/.project_config.toml";

function errorOf(text: string): ConfigError {
  try {
    parseProjectConfig(text, FILE);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

describe("parseProjectConfig", () => {
  it("reads every section", () => {
    const c = parseProjectConfig(
      `name = "p"\n[default_model]\nprovider = "deepseek"\nmodel_id = "deepseek-v4-flash"\n[default_chat]\napproval_mode = "read-only"\nthinking_level = "high"\n[command_policy]\nenabled = true\n[[command_policy.rules]]\nname = "no-curl"\npattern = "curl"\n[[models]]\nprovider = "deepseek"\nmodel_id = "deepseek-v4-flash"\nclient_type = "openai"\napi_key = "sk-1"\ncontext_window = 1000000\npricing = { unit = "usd_per_mtok", cache_read = 0.07, output = 1.1 }\n`,
      FILE,
    );
    expect(c.default_model).toEqual({ provider: "deepseek", model_id: "deepseek-v4-flash" });
    expect(c.models[0]).toMatchObject({ client_type: "openai-chat", api_key: "sk-1", context_window: 1000000, pricing: { unit: "usd_per_mtok", cache_read: 0.07, output: 1.1 } });
    expect(c.command_policy?.rules[0]).toEqual({ name: "no-curl", pattern: "curl" });
    expect(c.default_chat).toEqual({ approval_mode: "read-only", thinking_level: "high" });
  });

  it("names the file and line of a TOML syntax error", () => {
    const e = errorOf(`name = "p"\n[[models]\nprovider = "x"\n`);
    expect(e.message).toContain(FILE);
    expect(e.detail.line).toBe(2);
  });

  it("names the field of a wrong type or a missing key", () => {
    const wrong = errorOf(`[[models]]\nprovider = "a"\nmodel_id = "b"\ncontext_window = "big"\n`);
    expect(wrong.detail.field).toBe("models[0].context_window");
    expect(wrong.detail.line).toBe(4);
    expect(wrong.message).toMatch(/must be a number/);
    expect(errorOf(`[default_model]\nprovider = "a"\n`).detail.field).toBe("default_model.model_id");
    expect(errorOf(`[[models]]\nprovider = "a"\nmodel_id = "b"\nclient_type = "grpc"\n`).message).toMatch(/client_type.*openai-chat/);
    expect(errorOf(`[default_chat]\napproval_mode = "yolo"\n`).detail.field).toBe("default_chat.approval_mode");
  });

  it("refuses two entries for the same pair", () => {
    expect(errorOf(`[[models]]\nprovider = "a"\nmodel_id = "b"\n[[models]]\nprovider = "a"\nmodel_id = "b"\n`).message).toMatch(/duplicate model entry a\/b/);
  });

  it("treats a missing file as empty, and writes atomically with mode 0600", () => {
    const dir = mkdtempSync(join(tmpdir(), "pc-"));
    const file = join(dir, "p", ".project_config.toml");
    expect(readProjectConfig(file)).toEqual({ models: [] });
    let c = upsertModel({ models: [] }, { provider: "a", model_id: "b", api_key: "sk-2" });
    c = { ...c, default_model: { provider: "a", model_id: "b" } };
    writeProjectConfig(file, c);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readProjectConfig(file)).toEqual(c);
    writeProjectConfig(file, removeModel(c, { provider: "a", model_id: "b" }));
    expect(readProjectConfig(file)).toEqual({ models: [] });
    writeFileSync(file, "garbage = [", { mode: 0o600 });
    expect(() => readProjectConfig(file)).toThrow(ConfigError);
    expect(readFileSync(file, "utf8")).toBe("garbage = [");
  });
});

describe("model resolution", () => {
  const ctx = { env: {}, configFile: FILE };
  const config = parseProjectConfig(`[default_model]\nprovider = "local"\nmodel_id = "m1"\n[[models]]\nprovider = "local"\nmodel_id = "m1"\nbase_url = "http://127.0.0.1:9/v1"\n[[models]]\nprovider = "deepseek"\nmodel_id = "deepseek-v4-flash"\n`, FILE);

  const codeOf = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      if (e instanceof PenguinError) return e.code;
    }
    return undefined;
  };

  it("takes the pair whole or not at all, and never infers it", () => {
    expect(codeOf(() => resolveModelEntry(config, { provider: "local" }, ctx))).toBe("half_model_pair");
    expect(codeOf(() => resolveModelEntry(config, { modelId: "m1" }, ctx))).toBe("half_model_pair");
    expect(codeOf(() => resolveModelEntry(config, { provider: "other", modelId: "m1" }, ctx))).toBe("unknown_model");
    expect(resolveModelEntry(config, {}, ctx).model_id).toBe("m1");
    expect(codeOf(() => resolveModelEntry({ models: [] }, {}, ctx))).toBe("model_not_configured");
  });

  it("fills missing fields from the preset and takes env keys only for the provider's own URL", () => {
    const entry = resolveModelEntry(config, { provider: "deepseek", modelId: "deepseek-v4-flash" }, ctx);
    const e = endpointOf(entry, { env: { DEEPSEEK_API_KEY: "sk-env" }, configFile: FILE });
    expect(e.baseUrl).toMatch(/deepseek/);
    expect(e.apiKey).toBe("sk-env");
    const moved = endpointOf({ ...entry, base_url: "https://proxy.example/v1" }, { env: { DEEPSEEK_API_KEY: "sk-env" }, configFile: FILE });
    expect(moved.apiKey).toBeUndefined();
  });
});
