/**
 * Records the sessions shipped under `fixtures/traces/`: each one is a real engine run (the
 * SDK, real tools in a real workspace, a real trace writer) against the testkit's scripted
 * model on 127.0.0.1, so the traces are exactly what a live session writes. Replay tests,
 * `penguin demo` and time-travel tests read them back.
 *
 *   node --conditions=development --import tsx packages/core/scripts/record-traces.ts [name…]
 *
 * For each fixture it writes `fixtures/traces/<name>/`: the session's trace files (and its
 * subagents' traces), plus `workspace/`, the workspace as it was before the first task, which
 * `replay --tools rerun` copies before running the tools again. Recording again replaces the
 * folder; session ids and timestamps change, the shape of the sessions does not.
 *
 * The scripts are written so a replay is deterministic: no tool output depends on time,
 * and the aborted session stops a `sleep` that would outlast the test.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { OmniMessage } from "@penguin/omnimessage";
import { startTestkit, type ScriptStep } from "@penguin/testkit";
import { createAgent, writeProjectConfig, type Session } from "../src/index.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const outRoot = join(repo, "fixtures", "traces");

interface Fixture {
  name: string;
  files: Record<string, string>;
  script: ScriptStep[];
  contextWindow?: number;
  /** Drives the session: each entry is one task. */
  drive(session: Session): Promise<void>;
}

const allow = async () => "allow" as const;

async function drain(stream: AsyncIterable<OmniMessage>, onMessage?: (m: OmniMessage) => void): Promise<void> {
  for await (const m of stream) onMessage?.(m);
}

const exec = (cmd: string, description: string) => ({ name: "exec_command", arguments: { cmd, description } });
const read = (file_path: string) => ({ name: "read_file", arguments: { file_path } });
const write = (file_path: string, content: string) => ({ name: "write_file", arguments: { file_path, content } });

const FIXTURES: Fixture[] = [
  {
    name: "demo",
    files: {
      "README.md": "# tiny-greeter\n\nA tiny command-line greeter.\n\n    node greet.js Ada\n",
      "greet.js": 'const name = process.argv[2] ?? "world";\nconsole.log(`Hello, ${name}!`);\n',
      "package.json": '{\n  "name": "tiny-greeter",\n  "version": "1.0.0",\n  "type": "module"\n}\n',
    },
    script: [
      { text: "Let me look at the project first.", toolCalls: [read("README.md"), read("greet.js")], usage: { input: 1800, output: 40 } },
      { text: "Now I'll run it to see what it prints.", toolCalls: [exec("node greet.js Penguin", "run the greeter")], usage: { input: 2100, cached: 1800, output: 30 } },
      {
        text: "It works. I'll write a short usage note next to the code.",
        toolCalls: [write("USAGE.md", "# Using tiny-greeter\n\n- `node greet.js` prints `Hello, world!`\n- `node greet.js Penguin` prints `Hello, Penguin!`\n")],
        usage: { input: 2300, cached: 2100, output: 80 },
      },
      {
        text: "Done. Here is what I found and did:\n\n- **greet.js** prints a greeting for the name you pass (default `world`).\n- Running `node greet.js Penguin` prints `Hello, Penguin!`.\n- I wrote **USAGE.md** with both ways to call it.\n",
        usage: { input: 2500, cached: 2300, output: 60 },
      },
    ],
    async drive(session) {
      await drain(session.run("Take a look at this little project, run it once, and write a short USAGE.md for it.", { approve: allow }));
    },
  },
  {
    name: "tools",
    files: { "notes.txt": "alpha beta gamma\ndelta epsilon\n", "old.log": "stale\n" },
    script: [
      { text: "Reading the notes and counting words.", toolCalls: [read("notes.txt"), exec("wc -w < notes.txt", "count words")] },
      { text: "notes.txt has 5 words." },
      { toolCalls: [exec("rm old.log", "delete the log"), write("summary.txt", "5 words\n")] },
      { text: "I wrote summary.txt; deleting old.log was denied, so it is still there." },
    ],
    async drive(session) {
      await drain(session.run("How many words are in notes.txt?", { approve: allow }));
      const approve = async (call: { name: string }) => (call.name === "exec_command" ? ("deny" as const) : ("allow" as const));
      await drain(session.run("Write the count to summary.txt and delete old.log.", { approve }));
    },
  },
  {
    name: "compaction",
    files: { "data.csv": "a,b\n1,2\n3,4\n" },
    contextWindow: 12000,
    script: [
      { text: "Reading the data.", toolCalls: [read("data.csv")], usage: { input: 3000, output: 20 } },
      { text: "data.csv has two rows: (1,2) and (3,4).", usage: { input: 10500, output: 20 } },
      { text: "[summary]The user asked about data.csv; it has columns a,b and two rows (1,2), (3,4).[/summary]", usage: { input: 10600, output: 40 } },
      { text: "The sum of column a is 4.", usage: { input: 600, output: 10 } },
    ],
    async drive(session) {
      await drain(session.run("What is in data.csv?", { approve: allow }));
      await drain(session.run("What is the sum of column a?", { approve: allow }));
    },
  },
  {
    name: "subagent",
    files: { "a.txt": "one\n", "b.txt": "two\n" },
    script: [
      { text: "I'll ask a subagent to list the files.", toolCalls: [{ name: "run_subagent", arguments: { prompt: "List the files in the workspace, one per line.", description: "list files" } }] },
      { toolCalls: [exec("ls", "list files")] },
      { text: "a.txt\nb.txt" },
      { text: "The workspace holds a.txt and b.txt." },
    ],
    async drive(session) {
      await drain(session.run("Which files are here? Use a subagent.", { approve: allow }));
    },
  },
  {
    name: "aborted",
    files: { "slow.sh": "sleep 30\necho finished\n" },
    script: [
      { text: "Running the slow script.", toolCalls: [exec("bash slow.sh", "run the slow script")] },
      { text: "Understood, I stopped. Nothing else was changed." },
    ],
    async drive(session) {
      const controller = new AbortController();
      await drain(session.run("Run slow.sh.", { approve: allow, signal: controller.signal }), (m) => {
        // Abort once the command is running: the request has ended and the call was allowed.
        if (m.type === "event_msg" && m.payload.type === "token_usage") setTimeout(() => controller.abort(), 200);
      });
      await drain(session.run("Never mind, stop there and tell me what happened.", { approve: allow }));
    },
  },
];

async function record(fixture: Fixture): Promise<void> {
  const kit = await startTestkit({ script: fixture.script });
  const root = mkdtempSync(join(tmpdir(), "penguin-record-"));
  const workspace = mkdtempSync(join(tmpdir(), "penguin-record-ws-"));
  try {
    for (const [name, content] of Object.entries(fixture.files)) writeFileSync(join(workspace, name), content);
    const setup = await createAgent({ root, env: {} });
    writeProjectConfig(setup.paths.projectConfig, {
      default_model: { provider: "testkit", model_id: "scripted-model" },
      models: [{ provider: "testkit", model_id: "scripted-model", client_type: "openai-chat", base_url: kit.baseUrl("openai-chat"), api_key: "sk-fixture-not-a-secret", context_window: fixture.contextWindow ?? 128000 }],
    });
    const agent = await createAgent({ root, env: {} });
    const out = join(outRoot, fixture.name);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    cpSync(workspace, join(out, "workspace"), { recursive: true });
    const session = await agent.createSession({ workspaceDir: workspace });
    await fixture.drive(session);
    await session.dispose();
    if (kit.violations.length > 0) throw new Error(`${fixture.name}: testkit violations: ${JSON.stringify(kit.violations)}`);
    if (kit.pending() > 0) throw new Error(`${fixture.name}: ${kit.pending()} scripted steps were not used`);
    const tracesDir = agent.paths.tracesDir;
    for (const date of readdirSync(tracesDir)) {
      for (const file of readdirSync(join(tracesDir, date))) cpSync(join(tracesDir, date, file), join(out, file));
    }
    process.stdout.write(`recorded ${fixture.name}: session ${session.id}\n`);
  } finally {
    await kit.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

const wanted = process.argv.slice(2);
for (const fixture of FIXTURES.filter((f) => wanted.length === 0 || wanted.includes(f.name))) await record(fixture);
