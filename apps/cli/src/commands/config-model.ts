/**
 * `penguin config model add|default|vision|remove|list`: the project's model table in
 * `.project_config.toml`, edited only through core's project-config functions (read, pure
 * edit, atomic 0600 write), so the file format and its checks live in one place.
 *
 * - `add` creates an entry or updates the fields given of an existing one (other fields are
 *   kept, so `add --provider p --model-id m --api-key NEW` rotates a key); the first model
 *   of a project, and any added with `--set-default`, becomes the default. Before anything
 *   is written it checks what it was given: the base URL must parse and be http or https, and
 *   a key must not be empty (`--api-key "$VAR"` with the variable unset) unless the entry is
 *   marked keyless with `--no-key` (Ollama, vLLM); a refused add leaves the file untouched
 *   and exits 2 saying what to type. `--check` sends one small request through the gateway
 *   first and reports its latency and the model's answer, or the error class (exit 3 for
 *   auth, 2 for a misconfigured endpoint, 1 otherwise); a failed check still saves the entry
 *   but does not make it the default unless `--force` is given.
 * - `test P M` runs the same check on an entry already saved.
 * - `default` / `vision` point at an existing entry; `remove` also clears those pointers.
 * - `list` masks keys (`sk-…abcd`) and marks the default with `*`.
 */
import type { ModelEntry, ProjectConfig } from "@penguin/core";
import type { ClientType, Pricing } from "@penguin/models";
import { CLIENT_TYPES } from "@penguin/models";
import { CliFailure, UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { compactNumber } from "../render/format.js";
import { maskSecret } from "../render/mask.js";
import { Output } from "../render/output.js";

interface ProjectFlags {
  root?: string;
  projectId?: string;
}

interface PairFlags extends ProjectFlags {
  provider: string;
  modelId: string;
}

export interface ModelAddFlags extends PairFlags {
  clientType?: string;
  baseUrl?: string;
  apiKey?: string;
  contextWindow?: number;
  maxTokens?: number;
  displayName?: string;
  vision?: boolean;
  fastMode?: boolean;
  priceCacheRead?: number;
  priceCacheWrite?: number;
  priceOutput?: number;
  setDefault?: boolean;
  check?: boolean;
  /** False with `--no-key`: the endpoint takes no key (commander's negated option). */
  key?: boolean;
  force?: boolean;
}

async function configFile(flags: ProjectFlags): Promise<string> {
  const { projectPaths, resolveRoot, DEFAULT_PROJECT } = await import("@penguin/core");
  return projectPaths(resolveRoot(flags.root), flags.projectId ?? DEFAULT_PROJECT).projectConfig;
}

async function load(flags: ProjectFlags): Promise<{ file: string; config: ProjectConfig }> {
  const { readProjectConfig } = await import("@penguin/core");
  const file = await configFile(flags);
  return { file, config: readProjectConfig(file) };
}

function pairName(p: { provider: string; model_id: string }): string {
  return `${p.provider}/${p.model_id}`;
}

function parseClientType(value: string | undefined): ClientType | undefined {
  if (value === undefined) return undefined;
  const hit = CLIENT_TYPES.find((c) => c === value);
  if (hit === undefined) throw new UsageError(`unknown client type "${value}": use one of ${CLIENT_TYPES.join(", ")}`);
  return hit;
}

function checkPair(flags: PairFlags): void {
  if (flags.provider.trim() === "" || flags.modelId.trim() === "") throw new UsageError("--provider and --model-id must not be empty");
}

/** Refuses a key that is given but empty, and a key together with `--no-key`; exit 2, nothing written. */
function checkKeyFlags(flags: ModelAddFlags): void {
  const keyless = flags.key === false;
  if (flags.apiKey !== undefined && keyless) {
    throw new UsageError("--api-key and --no-key contradict each other: give the key with --api-key <key>, or --no-key for a local server that takes none, not both");
  }
  if (flags.apiKey !== undefined && flags.apiKey.trim() === "") {
    throw new UsageError(
      `--api-key is empty for ${flags.provider}/${flags.modelId} (is the variable in --api-key "$VAR" unset?); nothing was written. ` +
        "Give the key: --api-key <key>, or mark a local server that takes none (Ollama, vLLM) with --no-key",
    );
  }
}

/** Refuses a base URL that cannot be a model endpoint; exit 2, nothing written. */
async function checkBaseUrl(entry: ModelEntry, given: boolean): Promise<void> {
  if (entry.base_url === undefined) return;
  const { baseUrlProblem } = await import("@penguin/models");
  const problem = baseUrlProblem(entry.base_url);
  if (problem === undefined) return;
  const which = given ? "--base-url" : `the saved base_url of ${pairName(entry)}`;
  throw new UsageError(`${which} ${problem}; nothing was written. Type the protocol root with its scheme: --base-url https://api.example.com/v1`);
}

export async function modelAdd(flags: ModelAddFlags): Promise<ExitCode> {
  checkPair(flags);
  checkKeyFlags(flags);
  const core = await import("@penguin/core");
  const { file, config } = await load(flags);
  const ref = { provider: flags.provider, model_id: flags.modelId };
  const existing = core.findModel(config, ref);
  const entry: ModelEntry = { ...existing, ...ref };
  const clientType = parseClientType(flags.clientType);
  if (clientType !== undefined) entry.client_type = clientType;
  if (flags.baseUrl !== undefined) entry.base_url = flags.baseUrl.trim();
  await checkBaseUrl(entry, flags.baseUrl !== undefined);
  if (flags.apiKey !== undefined) {
    entry.api_key = flags.apiKey;
    delete entry.keyless;
  }
  if (flags.key === false) {
    entry.keyless = true;
    delete entry.api_key;
  }
  if (flags.contextWindow !== undefined) entry.context_window = flags.contextWindow;
  if (flags.maxTokens !== undefined) entry.max_tokens = flags.maxTokens;
  if (flags.displayName !== undefined) entry.display_name = flags.displayName;
  if (flags.vision !== undefined) entry.vision = flags.vision;
  if (flags.fastMode !== undefined) entry.fast_mode = flags.fastMode;
  if (flags.priceCacheRead !== undefined || flags.priceCacheWrite !== undefined || flags.priceOutput !== undefined) {
    const pricing: Pricing = { ...entry.pricing, unit: "usd_per_mtok" };
    if (flags.priceCacheRead !== undefined) pricing.cache_read = flags.priceCacheRead;
    if (flags.priceCacheWrite !== undefined) pricing.cache_write = flags.priceCacheWrite;
    if (flags.priceOutput !== undefined) pricing.output = flags.priceOutput;
    entry.pricing = pricing;
  }
  // The check runs before the write: whether the entry becomes the default depends on it.
  const check = flags.check === true ? await checkEntry(entry, file) : undefined;
  let next = core.upsertModel(config, entry);
  // A table without a default takes this entry as it (the first model added: the server applies core's firstAddedDefault).
  const wantsDefault = flags.setDefault === true || config.default_model === undefined;
  const makeDefault = wantsDefault && (check === undefined || check.ok || flags.force === true);
  if (makeDefault) next = { ...next, default_model: ref };
  core.writeProjectConfig(file, next);

  const out = Output.of(process.stdout);
  const notDefault = wantsDefault && !makeDefault ? " (not made the default: the check failed; add --force to make it the default anyway)" : "";
  out.line(`${existing === undefined ? "added" : "updated"} ${pairName(ref)}${makeDefault ? " (default)" : ""}${notDefault} in ${file}`);
  // Saved either way; say now (not at the first run) when the entry cannot be used yet.
  try {
    core.endpointOf(entry, { env: process.env, configFile: file });
  } catch (error) {
    if (!core.isPenguinError(error)) throw error;
    Output.of(process.stderr).line(`warning: ${error.message}`);
  }
  if (check === undefined) return EXIT.done;
  return reportCheck(check, out);
}

/** `config model test P M`: the `--check` of `add`, on an entry already saved. */
export async function modelTest(provider: string, modelId: string, flags: ProjectFlags): Promise<ExitCode> {
  checkPair({ ...flags, provider, modelId });
  const core = await import("@penguin/core");
  const { file, config } = await load(flags);
  const entry = core.findModel(config, { provider, model_id: modelId });
  if (entry === undefined) {
    const known = config.models.map(pairName).join(", ") || "none";
    throw new UsageError(`model ${provider}/${modelId} is not configured in ${file} (configured: ${known}); add it with: penguin config model add --provider ${provider} --model-id ${modelId} --base-url <url> --api-key <key> --check`);
  }
  await checkBaseUrl(entry, false);
  return reportCheck(await checkEntry(entry, file), Output.of(process.stdout));
}

interface CheckResult {
  ok: boolean;
  baseUrl: string;
  result: import("@penguin/models").TestModelResult;
  configuration: boolean;
}

/** One small request through the gateway (the gateway flags configuration errors, for the exit code). */
async function checkEntry(entry: ModelEntry, file: string): Promise<CheckResult> {
  const [{ endpointOf }, { testModel }] = await Promise.all([import("@penguin/core"), import("@penguin/models")]);
  const endpoint = endpointOf(entry, { env: process.env, configFile: file });
  const result = await testModel(endpoint, { timeoutMs: 30_000, answer: true });
  return { ok: result.ok, baseUrl: endpoint.baseUrl, result, configuration: result.configuration === true };
}

function reportCheck(check: CheckResult, out: Output): ExitCode {
  const { result, baseUrl } = check;
  const c = out.colors;
  if (result.ok) {
    const first = result.ttftMs !== undefined ? ` · first token after ${Math.round(result.ttftMs)} ms` : "";
    const total = result.totalMs !== undefined ? ` · ${Math.round(result.totalMs)} ms in all` : "";
    const answer = result.answer !== undefined ? ` · answer: ${JSON.stringify(result.answer.trim())}` : "";
    out.line(c.green(`check: ok${first} (${baseUrl})${total}${answer}`));
    return EXIT.done;
  }
  const message = `check: ${result.status} at ${baseUrl}: ${result.error ?? "no detail"}`;
  throw new CliFailure(message, result.status === "auth" ? EXIT.auth : check.configuration ? EXIT.usage : EXIT.failed);
}

async function pointAt(flags: PairFlags, field: "default_model" | "vision_model", label: string): Promise<ExitCode> {
  checkPair(flags);
  const core = await import("@penguin/core");
  const { file, config } = await load(flags);
  const ref = { provider: flags.provider, model_id: flags.modelId };
  if (core.findModel(config, ref) === undefined) {
    throw new UsageError(
      `model ${pairName(ref)} is not configured in ${file}; add it first with: penguin config model add --provider ${ref.provider} --model-id ${ref.model_id} --base-url <url> --api-key <key>`,
    );
  }
  core.writeProjectConfig(file, { ...config, [field]: ref });
  Output.of(process.stdout).line(`${label} model is now ${pairName(ref)}`);
  return EXIT.done;
}

export function modelDefault(flags: PairFlags): Promise<ExitCode> {
  return pointAt(flags, "default_model", "the default");
}

export function modelVision(flags: PairFlags): Promise<ExitCode> {
  return pointAt(flags, "vision_model", "the vision");
}

export async function modelRemove(flags: PairFlags): Promise<ExitCode> {
  checkPair(flags);
  const core = await import("@penguin/core");
  const { file, config } = await load(flags);
  const ref = { provider: flags.provider, model_id: flags.modelId };
  if (core.findModel(config, ref) === undefined) throw new UsageError(`model ${pairName(ref)} is not configured in ${file}; nothing removed`);
  const next = core.removeModel(config, ref);
  core.writeProjectConfig(file, next);
  const cleared = config.default_model !== undefined && core.sameRef(config.default_model, ref) ? " (it was the default: set another with penguin config model default)" : "";
  Output.of(process.stdout).line(`removed ${pairName(ref)}${cleared}`);
  return EXIT.done;
}

export async function modelList(flags: ProjectFlags): Promise<ExitCode> {
  const core = await import("@penguin/core");
  const { file, config } = await load(flags);
  const out = Output.of(process.stdout);
  const c = out.colors;
  if (config.models.length === 0) {
    out.line(`no models configured in ${file}`);
    out.line("add one with: penguin config model add --provider <provider> --model-id <model> --client-type <type> --base-url <url> --api-key <key>");
    return EXIT.done;
  }
  const rows = config.models.map((m) => {
    const isDefault = config.default_model !== undefined && core.sameRef(config.default_model, m);
    const isVision = config.vision_model !== undefined && core.sameRef(config.vision_model, m);
    const details = [
      m.client_type ?? "client: preset",
      m.base_url ?? "base url: preset",
      m.keyless === true ? "keyless" : m.api_key !== undefined ? `key ${maskSecret(m.api_key)}` : "key: env or none",
      m.context_window !== undefined ? `ctx ${compactNumber(m.context_window)}` : undefined,
      m.pricing !== undefined ? priceText(m.pricing) : undefined,
      isVision ? "vision model" : undefined,
    ].filter((d) => d !== undefined);
    return { mark: isDefault ? "*" : " ", name: pairName(m), details: details.join(" · ") };
  });
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) out.line(`${r.mark === "*" ? c.green("*") : " "} ${c.bold(r.name.padEnd(width))}  ${c.dim(r.details)}`);
  out.line(c.dim(`(* = default · ${file})`));
  return EXIT.done;
}

function priceText(p: Pricing): string {
  const v = (x: number | undefined): string => (x === undefined ? "?" : String(x));
  return `$/Mtok in ${v(p.cache_write)} cached ${v(p.cache_read)} out ${v(p.output)}`;
}
