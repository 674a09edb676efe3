// Agent State snapshots on real files: export is a tar.gz of agent_state/ without the vault,
// named and stored as snapshots/v<version>.tar.gz; import reads the version inside, asks for
// confirmation when it is not newer, saves the current state first, keeps the current vault,
// and refuses hostile archives (`..`, absolute paths, symlinks) before extracting anything.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { list } from "tar";
import { afterEach, describe, expect, it } from "vitest";
import { agentPaths, parseSystemConfig, readVault, writeVault } from "@penguin/core";
import { startHarness, type Harness } from "./helpers/harness.js";
import { tarGz } from "./helpers/tarball.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const A = "/api/projects/default_project/agents/default_agent";

async function entriesOf(bytes: Buffer): Promise<string[]> {
  const file = join(tmpdir(), `penguin-snapshot-test-${process.pid}-${Date.now()}.tar.gz`);
  writeFileSync(file, bytes);
  const names: string[] = [];
  try {
    await list({ file, onReadEntry: (e) => void names.push(e.path) });
  } finally {
    rmSync(file, { force: true });
  }
  return names;
}

function setVersion(file: string, version: number): void {
  writeFileSync(file, readFileSync(file, "utf8").replace(/^version: \d+$/m, `version: ${version}`));
}

describe("snapshots", () => {
  it("exports agent_state without the vault as v<version>.tar.gz and keeps a copy under snapshots/", async () => {
    h = await startHarness();
    const c = await h.admin();
    const paths = agentPaths(h.root, "default_project", "default_agent");
    await writeVault(paths.vault, { API_TOKEN: "do-not-export" });
    setVersion(paths.systemConfig, 3);
    const res = await c.raw("GET", `${A}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain('filename="v3.tar.gz"');
    const bytes = Buffer.from(await res.arrayBuffer());
    const names = await entriesOf(bytes);
    expect(names).toEqual(expect.arrayContaining(["agent_state/system_config.yaml", "agent_state/AGENTS.md"]));
    expect(names.some((n) => n.includes(".vault.toml"))).toBe(false);
    expect(readFileSync(join(paths.snapshotsDir, "v3.tar.gz")).equals(bytes)).toBe(true);
    expect((await c.get(`${A}/snapshots`)).body).toMatchObject({ version: 3, snapshots: [{ name: "v3.tar.gz", version: 3 }] });
  });

  it("imports a newer state at once, an older one only when confirmed, saving the current state and keeping the vault", async () => {
    h = await startHarness();
    const c = await h.admin();
    const paths = agentPaths(h.root, "default_project", "default_agent");
    setVersion(paths.systemConfig, 2);
    writeFileSync(paths.agentsMd, "# version two rules\n");
    const v2 = Buffer.from(await (await c.raw("GET", `${A}/export`)).arrayBuffer());

    setVersion(paths.systemConfig, 5);
    writeFileSync(paths.agentsMd, "# version five rules\n");
    await writeVault(paths.vault, { KEEP_ME: "current-secret" });
    const older = await c.post(`${A}/import`, { dataBase64: v2.toString("base64") });
    expect(older.status).toBe(409);
    expect(older.body.error.code).toBe("confirm_required");
    expect(readFileSync(paths.agentsMd, "utf8")).toBe("# version five rules\n");

    const confirmed = await c.post(`${A}/import`, { dataBase64: v2.toString("base64"), confirm: true });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ version: 2, previousVersion: 5, snapshot: "v5.tar.gz" });
    expect(readFileSync(paths.agentsMd, "utf8")).toBe("# version two rules\n");
    expect(parseSystemConfig(readFileSync(paths.systemConfig, "utf8"), paths.systemConfig).version).toBe(2);
    expect(await readVault(paths.vault)).toEqual({ KEEP_ME: "current-secret" });
    expect(existsSync(join(paths.snapshotsDir, "v5.tar.gz"))).toBe(true);

    const v5 = readFileSync(join(paths.snapshotsDir, "v5.tar.gz"));
    const newer = await c.post(`${A}/import`, { dataBase64: v5.toString("base64") });
    expect(newer.status).toBe(200);
    expect(readFileSync(paths.agentsMd, "utf8")).toBe("# version five rules\n");
    expect(await readVault(paths.vault)).toEqual({ KEEP_ME: "current-secret" });
  });

  it("refuses traversal, absolute paths, links and archives without a loadable config, changing nothing", async () => {
    h = await startHarness();
    const c = await h.admin();
    const paths = agentPaths(h.root, "default_project", "default_agent");
    const before = readFileSync(paths.systemConfig, "utf8");
    const config = { path: "agent_state/system_config.yaml", body: "version: 9\nsystem_prompt: hi\n" };
    const hostile: [string, Buffer][] = [
      ["dotdot", tarGz([config, { path: "agent_state/../../escaped.txt", body: "x" }])],
      ["absolute", tarGz([config, { path: "/tmp/penguin-absolute-escape.txt", body: "x" }])],
      ["outside agent_state", tarGz([config, { path: "traces/fake.jsonl", body: "x" }])],
      ["symlink", tarGz([config, { path: "agent_state/link", type: "2", linkTarget: "/etc/passwd" }])],
    ];
    for (const [what, archive] of hostile) {
      const res = await c.post(`${A}/import`, { dataBase64: archive.toString("base64"), confirm: true });
      expect(res.status, what).toBe(400);
      expect(res.body.error.message, what).toContain("unsafe entries");
    }
    const noConfig = await c.post(`${A}/import`, { dataBase64: tarGz([{ path: "agent_state/AGENTS.md", body: "x" }]).toString("base64"), confirm: true });
    expect(noConfig.status).toBe(400);
    expect((await c.post(`${A}/import`, { dataBase64: Buffer.from("not a tarball").toString("base64") })).status).toBe(400);
    expect(readFileSync(paths.systemConfig, "utf8")).toBe(before);
    expect(existsSync(join(paths.agentDir, "..", "escaped.txt"))).toBe(false);
    expect(existsSync("/tmp/penguin-absolute-escape.txt")).toBe(false);

    const good = await c.post(`${A}/import`, { dataBase64: tarGz([{ path: "agent_state/", type: "5" }, config]).toString("base64") });
    expect(good.status).toBe(200);
    expect(good.body.version).toBe(9);
    expect(existsSync(paths.toolsDir)).toBe(true);
  });
});
