// `penguin chat` with piped stdin: lines are a script, run one after another (no steering
// without a terminal), an approval question takes the next line, EOF denies, and the chat
// ends by printing the command that resumes the session; /undo and /rewind N take files and turns back.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { runCli } from "./helpers/run-cli.js";
import { traceFilesOf, traceMessages } from "./helpers/trace-files.js";
import { startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const RESUME = /penguin chat --resume (session-[\w-]+)\n$/;

describe("penguin chat (piped stdin)", { timeout: 60_000 }, () => {
  it("runs a conversation of two tasks, then /exit prints the resume command", async () => {
    world = await startWorld({ script: [{ text: "answer one" }, { text: "answer two" }] });
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "task one\ntask two\n/exit\n" });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const one = r.stdout.indexOf("answer one");
    const two = r.stdout.indexOf("answer two");
    expect(one).toBeGreaterThan(0);
    expect(two).toBeGreaterThan(one);
    expect(r.stdout.match(/\[stats\] /g)).toHaveLength(2);
    expect(r.stdout).toContain("› task one");
    const sid = RESUME.exec(r.stdout)?.[1];
    expect(sid).toBeDefined();
    expect(traceFilesOf(world.root, sid!)).toHaveLength(1);

    expect(world.kit.requests).toHaveLength(2);
    const texts = world.kit.requests[1]!.messages.map((m) => `${m.role}:${m.text ?? ""}`);
    expect(texts).toEqual(expect.arrayContaining(["user:task one", "assistant:answer one", "user:task two"]));
  });

  it("says which project instruction files it loaded, and the model gets them outermost first", async () => {
    world = await startWorld({ script: [{ text: "noted" }] });
    mkdirSync(join(world.workspace, ".git"));
    writeFileSync(join(world.workspace, "AGENTS.md"), "REPO-RULE-1\n");
    const sub = join(world.workspace, "pkg");
    mkdirSync(sub);
    writeFileSync(join(sub, "CLAUDE.md"), "PKG-RULE-2\n");
    const r = await runCli(["chat", "--workspace", sub], { env: world.env, input: "hello\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("instructions loaded: ../AGENTS.md, CLAUDE.md\n");
    const system = world.kit.requests[0]?.system ?? "";
    expect(system.indexOf("REPO-RULE-1")).toBeGreaterThan(0);
    expect(system.indexOf("PKG-RULE-2")).toBeGreaterThan(system.indexOf("REPO-RULE-1"));
  });

  it("continues the latest session with --resume and a given one with --resume SID", async () => {
    world = await startWorld({ script: [{ text: "first" }, { text: "again" }, { text: "third" }] });
    const first = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "remember 42\n" });
    const sid = RESUME.exec(first.stdout)?.[1];
    expect(sid).toBeDefined();

    const latest = await runCli(["chat", "--resume"], { env: world.env, input: "what was it?\n" });
    expect(latest.code).toBe(0);
    expect(latest.stdout).toContain(`session ${sid} (resumed)`);
    // The recap of the conversation so far comes before the new answer.
    expect(latest.stdout).toMatch(/the conversation so far ──\n› remember 42\n {2}first\n──\n/);
    expect(latest.stdout).toMatch(new RegExp(`penguin chat --resume ${sid}\\n$`));
    expect(world.kit.requests[1]!.messages.map((m) => m.text)).toEqual(expect.arrayContaining(["remember 42", "first", "what was it?"]));

    const given = await runCli(["chat", "--resume", sid!], { env: world.env, input: "and now?\n" });
    expect(given.code).toBe(0);
    expect(world.kit.requests[2]!.messages.map((m) => m.text)).toEqual(expect.arrayContaining(["remember 42", "what was it?", "again", "and now?"]));
  });

  it("a resumed chat keeps the thinking level its trace recorded", async () => {
    world = await startWorld({ script: [{ text: "first" }, { text: "again" }] });
    const first = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "/thinking high\nhello\n" });
    const sid = RESUME.exec(first.stdout)?.[1];
    expect(sid).toBeDefined();
    const resumed = await runCli(["chat", "--resume", sid!], { env: world.env, input: "again\n" });
    expect(resumed.code).toBe(0);
    // The starting level opens the trace, the change is recorded once, when it took effect;
    // the resumed task ran at it without a new record.
    const levels = traceMessages(world.root, sid!).flatMap((m) => (m.type === "event_msg" && m.payload.type === "settings_changed" && m.payload.thinking_level !== undefined ? [m.payload.thinking_level] : []));
    expect(levels).toEqual(["medium", "high"]);
    expect(world.kit.requests).toHaveLength(2);
  });

  it("asks approvals in always-ask mode: the next line answers, EOF denies", async () => {
    const call = (id: string) => ({ toolCalls: [{ name: "exec_command", id, arguments: { cmd: "echo ran-$((40+2))", description: "echo" } }] });
    world = await startWorld({ script: [call("call_yes001"), { text: "after yes" }, call("call_no0002"), { text: "after no" }, call("call_eof003"), { text: "after eof" }] });
    const r = await runCli(["chat", "--approve", "always-ask", "--workspace", world.workspace], { env: world.env, input: "first\n\nsecond\nn\nthird\n" });
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toContain("[tool-001] exec_command <- $ echo ran-$((40+2))\n? Approve this tool call? [Y/n] \n✓ [approved]");
    expect(out).toMatch(/\[tool-001\] -> ran-42/);
    expect(out).toContain("[tool-002] exec_command <- $ echo ran-$((40+2))\n? Approve this tool call? [Y/n] n\n✗ [denied]");
    expect(out).toContain("? Approve this tool call? [Y/n] (end of input)\n✗ [denied]");
    // The last request carries the whole history: the three calls' outputs, in order.
    const last = world.kit.requests[world.kit.requests.length - 1]!;
    const outputs = last.messages.filter((m) => m.kind === "tool_result").map((m) => m.text ?? "");
    expect(outputs).toHaveLength(3);
    expect(outputs[0]).toContain("ran-42");
    expect(outputs[1]).toContain("denied");
    expect(outputs[2]).toContain("denied");
    expect(out.indexOf("after eof")).toBeGreaterThan(out.indexOf("(end of input)"));
  });

  it("handles slash commands: /help, /thinking, /model, /verbose, unknown ones and /clear", async () => {
    world = await startWorld({ script: [{ text: "before clear" }, { text: "after clear" }] });
    const input = ["/help", "/thinking", "/thinking high", "/thinking deep", "/model", "/verbose", "/nope", "hello", "/clear", "again", "/exit"].join("\n");
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: `${input}\n` });
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toContain("/compact            compact the context now");
    expect(out).toContain("thinking level: medium\n");
    expect(out).toContain("thinking level: high\n");
    expect(out).toContain('error: unknown thinking level "deep"');
    expect(out).toMatch(/model: testkit\/scripted-model · context window 128k\n/);
    expect(out).toContain("verbose on: tool outputs in full");
    expect(out).toContain("unknown command /nope; /help lists the commands");
    const left = /\[session\] left (session-[\w-]+); resume it with: penguin chat --resume (session-[\w-]+)/.exec(out);
    expect(left?.[1]).toBe(left?.[2]);
    const fresh = /\[session\] new session (session-[\w-]+)/.exec(out)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(left?.[1]);
    expect(out).toMatch(new RegExp(`penguin chat --resume ${fresh}\\n$`));
    expect(world.kit.requests[1]!.messages.map((m) => m.text)).not.toContain("hello");
    expect(JSON.parse(world.kit.requests[0]!.rawBody).reasoning_effort).toBe("high");
    expect(JSON.parse(world.kit.requests[1]!.rawBody).reasoning_effort).toBe("high");
    const meta = traceMessages(world.root, fresh!)[0];
    expect(meta?.type === "session_meta" ? meta.payload.workspace : "").toContain("penguin-cli-ws-");
  });

  it("/model provider/model_id starts a new session on that model, and an unknown one keeps the current", async () => {
    world = await startWorld({ script: [{ text: "on the second model" }] });
    const { readProjectConfig, writeProjectConfig } = await import("@penguin/core");
    const config = readProjectConfig(world.configFile);
    const base = config.models[0]!;
    writeProjectConfig(world.configFile, { ...config, models: [...config.models, { ...base, provider: "other", model_id: "org/model-b" }] });
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "/model nope/missing\n/model other/org/model-b\n/model\nhi\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("error: model nope/missing is not configured");
    expect(r.stdout).toContain("model: other/org/model-b");
    expect(world.kit.requests[0]!.model).toBe("org/model-b");
  });

  it("/compact compacts the context: the summary streams dimmed and opens the next context", async () => {
    world = await startWorld({ script: [{ text: "hi there" }, { text: "[summary]we greeted each other[/summary]" }, { text: "after" }] });
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "hello\n/compact\n/compact\nnext\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[compact\] compacting the context \(\d+ tokens, 1 turns; manual, summarize\)…\n\[summary\] \[summary\]we greeted each other\[\/summary\]\n\[compact\] done\n/);
    expect(r.stdout).toContain("[compact] the context was just compacted");
    const third = world.kit.requests[2]!.messages.map((m) => m.text ?? "").join("\n");
    expect(third).toContain("we greeted each other");
    expect(third).toContain("next");
  });

  it("/compact says when there is nothing to compact", async () => {
    world = await startWorld();
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "/compact\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("[compact] there is nothing to compact yet");
    expect(existsSync(world.root)).toBe(true);
  });
  it("/undo removes the last task's file and its turn: the next request lacks the undone task", async () => {
    world = await startWorld({
      script: [
        { toolCalls: [{ name: "write_file", arguments: { file_path: "first.txt", content: "first\n" } }] },
        { text: "wrote first" },
        { toolCalls: [{ name: "write_file", arguments: { file_path: "second.txt", content: "second\n" } }] },
        { text: "wrote second" },
        { text: "after the undo" },
      ],
    });
    const input = "write the first file\nwrite the second file\n/undo\nwhat now?\n/rewind nope\n/exit\n";
    const r = await runCli(["chat", "--approve", "allow-all", "--workspace", world.workspace], { env: world.env, input });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[rewind\] files back to record \d+ .*: 0 written, 1 removed\n {2}removed {2}second\.txt\n/);
    expect(r.stdout).toMatch(/\[rewind\] conversation back to record \d+/);
    expect(r.stdout).toMatch(/undo the files with: \/rewind \d+/);
    expect(r.stdout).toContain("usage: /rewind N");
    expect(existsSync(join(world.workspace, "second.txt"))).toBe(false);
    expect(existsSync(join(world.workspace, "first.txt"))).toBe(true);
    const last = world.kit.requests.at(-1)!.messages.map((m) => m.text ?? "");
    expect(last).toEqual(expect.arrayContaining(["write the first file", "wrote first", "what now?"]));
    expect(last).not.toContain("write the second file");
    expect(last).not.toContain("wrote second");
  });

  it("/undo with no task yet says there is nothing to undo", async () => {
    world = await startWorld({ script: [] });
    const r = await runCli(["chat", "--workspace", world.workspace], { env: world.env, input: "/undo\n/exit\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("error: nothing to undo: the session has no task yet");
  });
});
