// The chat's `/undo` and `/rewind N` hook (chat/rewind-hook.ts) on a real session: the open
// session holds its lease, the hook lets it go, rewinds files and conversation, and hands
// back the resumed session, whose next request no longer carries the undone task; a refused
// rewind hands the session back as it was.
import { readFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "@penguin/core";
import { rewindOpenSession } from "../src/chat/rewind-hook.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const drain = async (it: AsyncIterable<unknown>) => {
  for await (const _ of it) {
    // drained
  }
};

describe("the chat's rewind hook", { timeout: 60_000 }, () => {
  it("/undo takes back the last task's files and conversation; the session goes on", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", arguments: { file_path: "one.txt", content: "1\n" } }] },
        { text: "wrote one" },
        { toolCalls: [{ name: "write_file", arguments: { file_path: "two.txt", content: "2\n" } }] },
        { text: "wrote two" },
        { text: "after undo" },
      ],
    });
    const agent = await createAgent({ root: world.root, env: {} });
    let session = await agent.createSession({ workspaceDir: world.workspace });
    await drain(session.run("write one", { approve: async () => "allow" }));
    await drain(session.run("write two", { approve: async () => "allow" }));
    expect(existsSync(join(world.workspace, "two.txt"))).toBe(true);

    ({ session } = await rewindOpenSession(agent, session, { kind: "undo" }));
    expect(existsSync(join(world.workspace, "two.txt"))).toBe(false);
    expect(readFileSync(join(world.workspace, "one.txt"), "utf8")).toBe("1\n");
    await drain(session.run("go on", { approve: async () => "allow" }));
    const texts = world.kit.requests.at(-1)!.messages.map((m) => m.text ?? "");
    expect(texts).toContain("wrote one");
    expect(texts).not.toContain("write two");

    writeFileSync(join(world.workspace, "one.txt"), "edited by hand\n");
    const refused = await rewindOpenSession(agent, session, { kind: "record", n: 2 }).catch((e: Error & { session?: typeof session }) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain("one.txt");
    session = (refused as Error & { session: typeof session }).session;
    expect(session.id).toBeDefined();
    await session.dispose();
  });
});
