/**
 * Reading a session's whole trace (every file, oldest first) through core's tolerant reader,
 * and the prices of its model, for `penguin sessions` and `penguin trace show`. Read-only:
 * unlike `createAgent`, nothing here creates folders in the data root.
 */
import type { AgentPaths } from "@penguin/core";
import type { Pricing } from "@penguin/models";
import type { OmniMessage } from "@penguin/omnimessage";

export interface AgentSelector {
  root?: string;
  projectId?: string;
  agentId?: string;
}

export async function pathsOf(flags: AgentSelector): Promise<AgentPaths> {
  const { agentPaths, resolveRoot, DEFAULT_AGENT, DEFAULT_PROJECT } = await import("@penguin/core");
  return agentPaths(resolveRoot(flags.root), flags.projectId ?? DEFAULT_PROJECT, flags.agentId ?? DEFAULT_AGENT);
}

export interface LoadedSession {
  messages: OmniMessage[];
  files: string[];
  /** Lines the reader skipped (torn tail, bad JSON). */
  skipped: number;
}

export async function loadSessionTrace(paths: AgentPaths, sessionId: string): Promise<LoadedSession | undefined> {
  const { readTraceFile, sessionTraceFiles } = await import("@penguin/core");
  const files = sessionTraceFiles(paths, sessionId);
  if (files.length === 0) return undefined;
  const messages: OmniMessage[] = [];
  let skipped = 0;
  for (const f of files) {
    const content = readTraceFile(f.file);
    messages.push(...content.messages);
    skipped += content.skipped.length;
  }
  return { messages, files: files.map((f) => f.file), skipped };
}

/** Prices of a (provider, model_id) pair as the project resolves it now; undefined when unknown. */
export async function pricingResolver(paths: AgentPaths): Promise<(provider: string, modelId: string) => Pricing | undefined> {
  const { readProjectConfig, resolveModelEndpoint } = await import("@penguin/core");
  let config: ReturnType<typeof readProjectConfig> | undefined;
  try {
    config = readProjectConfig(paths.projectConfig);
  } catch {
    config = undefined;
  }
  const cache = new Map<string, Pricing | undefined>();
  return (provider, modelId) => {
    const key = `${provider}\u0000${modelId}`;
    if (cache.has(key)) return cache.get(key);
    let pricing: Pricing | undefined;
    try {
      if (config !== undefined) pricing = resolveModelEndpoint(config, { provider, modelId }, { env: {}, configFile: paths.projectConfig }).pricing;
    } catch {
      pricing = undefined;
    }
    cache.set(key, pricing);
    return pricing;
  };
}
