// Shared fixtures for the state tests: a fresh data root in a temp folder per test, and a
// ConfigError matcher that checks what the user would read (file, line, field).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { ConfigError } from "../../src/state/config-error.js";
import { agentPaths, DEFAULT_PROJECT, type AgentPaths } from "../../src/state/paths.js";

const roots: string[] = [];

afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

export async function tempDir(prefix = "penguin-state-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  roots.push(dir);
  return dir;
}

export async function tempAgent(agentId = "default_agent"): Promise<AgentPaths> {
  return agentPaths(await tempDir(), DEFAULT_PROJECT, agentId);
}

/** Runs `fn` and returns the ConfigError it throws (failing the test otherwise). */
export async function configErrorOf(fn: () => unknown): Promise<ConfigError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    if (e instanceof ConfigError) return e;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}
