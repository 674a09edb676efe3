/**
 * The command tree: every command, flag and help text of `penguin`, in one file, so `--help`
 * is complete and reviewable in one place. Actions are thin: each imports its command
 * module on demand (core, the renderers and marked-terminal stay unloaded for `--help` and
 * `--version`) and hands back an exit code.
 *
 * Commander is set to throw instead of exiting (`exitOverride`): the entry point maps its
 * errors to exit 2 (usage) and help/version to 0, so the exit-code contract lives in main.ts.
 */
import { Command, Option } from "commander";
import type { ExitCode } from "./exit-codes.js";
import { nonNegativeNumber, positiveInt } from "./option-parsers.js";
import { unknownOptionsFirst } from "./unknown-options-first.js";
import { cliVersion } from "./version.js";

export type ExitSink = (code: ExitCode) => void;

const APPROVE_HELP =
  "approval mode: read-only (default: read-only tools run, every write and command is asked on a terminal and denied without one), allow-all (everything runs unasked), deny-all, always-ask (every call asked on a terminal, denied without one)";
const ACP_APPROVE_HELP =
  "approval mode: read-only (default: read-only tools run, every write and command is asked through the editor), allow-all (everything runs unasked), deny-all, always-ask (every call asked through the editor)";
const THINKING_HELP = "thinking level: none, low, medium, high, xhigh, max (default: the agent's, else medium)";

const MAIN_HELP_AFTER = `
Exit codes:
  0    the task is done            2    usage or configuration error
  1    the task failed             3    the provider rejected the API key
  130  the task was aborted (Ctrl-C / SIGINT)

Environment:
  PENGUIN_HOME               data root (default ~/.penguin/data); --root overrides it
  NO_COLOR                   no colours even on a terminal
  PENGUIN_RETRY_DELAY_SCALE  test/debug knob: factor on the reconnect waits (0 = no wait)
  PENGUIN_DEBUG              print stack traces of internal errors

Examples:
  penguin demo                 a recorded session replayed through the engine, no key needed
  penguin config model add --provider deepseek --model-id deepseek-chat --client-type openai-chat \\
      --base-url https://api.deepseek.com --api-key sk-...
  penguin run -m "summarize README.md"
  penguin run --json -m "list the TODOs" | jq -c 'select(.type == "model_msg")'
  penguin chat --resume`;

function agentOptions(cmd: Command, withAgent = true): Command {
  cmd.option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)").option("--project-id <id>", "project (default: default_project)");
  if (withAgent) cmd.option("--agent-id <id>", "agent (default: default_agent)");
  return cmd;
}

function sessionOptions(cmd: Command): Command {
  agentOptions(cmd)
    .option("--provider <provider>", "model provider; give it with --model-id (default: the project's default model)")
    .option("--model-id <id>", "model id; give it with --provider")
    .option("--workspace <dir>", "directory the agent works in (default: the current directory)")
    .option("--approve <mode>", APPROVE_HELP)
    .option("--thinking <level>", THINKING_HELP)
    .option("--sandbox", "require the bubblewrap sandbox for commands (the default where bwrap can run): refuse to start where it cannot")
    .option("--no-sandbox", "run commands unsandboxed, with your user's full access")
    .option("--sandbox-network", "let sandboxed commands use the network (default: none)");
  return cmd;
}

export function buildProgram(setExit: ExitSink): Command {
  const program = new Command("penguin");
  program
    .description("PenguinHarness: an agent harness with append-only traces and crash-safe resume")
    .version(cliVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .showSuggestionAfterError(true)
    .addHelpText("after", MAIN_HELP_AFTER);

  sessionOptions(
    program
      .command("run")
      .description("run one task and exit (0 done, 1 failed, 2 usage, 3 auth, 130 aborted)")
      .requiredOption("-m, --message <text>", "the task; '-' reads it from stdin"),
  )
    .option("--resume <sid>", "continue this session (its model and workspace) with the task")
    .option("--json", "print JSON Lines on stdout: the session_meta, then every complete message and event")
    .option("--partials", "with --json: also print streaming partials")
    .option("--verbose", "show tool outputs in full instead of collapsing long ones")
    .option("--goal [budget]", "run the task as a goal: rounds until the agent marks it complete or blocked, or the token budget (500k, 2m; default unlimited) is spent; exit 0 only when complete")
    .addHelpText(
      "after",
      `
Output:
  The answer goes to stdout; thinking, tool calls, retries and the stats line go to stderr.
  On a terminal the answer streams; piped, each request's text is written once it completed,
  so text cut off by a failed, retried request goes to stderr as [retried] instead.
  A misconfigured endpoint (bad base URL, unknown host, HTTP 404/501) exits 2 at once; a
  failing one is retried after 2, 4, 8, 16 and 30 s, one "[retry] retrying in …" line each.
  With --json, stdout carries one OmniMessage envelope per line and nothing else.

What the model may do (unless told otherwise):
  Read-only tools (read_file, …) run. Every write (write_file, edit_file) and every command is
  asked on the terminal first ("? Approve this tool call? [Y/n]"); without a terminal (a pipe,
  a script, CI) they are denied, and the first denial says so on stderr. --approve allow-all
  lets them all run unasked. Files are written in the workspace (--workspace, else the current
  directory). Commands run in a bubblewrap sandbox: the system read-only, the workspace
  writable, the data root and the workspace's sibling folders hidden, no network. Where bwrap
  cannot run, one line says so and commands run unsandboxed; --sandbox refuses instead, and
  --no-sandbox turns the sandbox off. The project's default_chat.approval_mode applies to chat
  only.

Examples:
  penguin run -m "fix the failing test" --workspace ~/src/app
  git diff | penguin run -m -                                 reads only: writes and commands are denied
  penguin run -m "run the tests and fix them" --approve allow-all   in CI: everything runs, sandboxed
  penguin run --resume session-2026-01-02-10-11-12-0a1b2c3d -m "and now the docs"`,
    )
    .action(async (opts) => {
      await (await import("./session/early-sandbox-probe.js")).startSandboxProbeEarly(opts);
      setExit(await (await import("./commands/run.js")).runCommand(opts));
    });

  sessionOptions(program.command("chat").description("interactive chat: streams answers, asks before writes and commands, steers running tasks"))
    .option("--resume [sid]", "continue a session: the latest one, or the given id")
    .option("--verbose", "show tool outputs in full (toggle with /verbose)")
    .addHelpText(
      "after",
      `
Approvals: --approve, else the mode a resumed session recorded, else the project's
  default_chat.approval_mode, else read-only: read-only tools run and every write and command
  is asked. On a terminal the question shows the command or the diff and offers: allow once,
  allow the tool (a command's program) for the session, deny, deny with a note to the model.
  With piped input ("? Approve this tool call? [Y/n]"), a question takes the next input line
  only when --approve chose the mode; otherwise writes and commands are denied.
  Commands run sandboxed as with penguin run (--no-sandbox to opt out).

In the chat (on a terminal a full-screen UI; piped or TERM=dumb, plain lines):
  Type a task and press Enter (Shift+Enter or Alt+Enter: new line; ↑/↓: history).
  @path attaches a workspace file (Tab completes). Typing while a task runs steers it;
  Esc interrupts it. Ctrl-O expands tool outputs. On a terminal also /approve MODE, /cost,
  /sessions, /resume ID, /fork [N], /inspect [N] (/help lists them).
  /compact            compact the context now
  /clear              start a new session (same model and workspace)
  /thinking [level]   show or set the thinking level
  /model [p/m]        show the model, or start a new session on provider p, model m
  /verbose            toggle full tool outputs
  /undo               rewind files and conversation to just before the last task
  /rewind N           rewind files and conversation to record N (undoable)
  /help               list the commands
  /exit               leave (prints the command that resumes the session)
  Ctrl-C              denies a pending approval, else aborts the running task, else clears
                      the line; twice on an empty line exits.`,
    )
    // The chat starts the sandbox probe itself: on a terminal only once its prompt is drawn (chat.ts).
    .action(async (opts) => setExit(await (await import("./commands/chat.js")).chatCommand(opts)));

  agentOptions(program.command("acp").description("serve the Agent Client Protocol on stdin/stdout for an editor (Zed, JetBrains, Neovim): sessions, approvals and edits through the editor"))
    .option("--approve <mode>", ACP_APPROVE_HELP)
    .option("--sandbox", "require the bubblewrap sandbox for commands (the default where bwrap can run): refuse to start where it cannot")
    .option("--no-sandbox", "run commands unsandboxed, with your user's full access")
    .option("--sandbox-network", "let sandboxed commands use the network (default: none)")
    .addHelpText("after", "\nWithout --approve, a loaded session keeps the approval mode it recorded; the editor's mode picker\nswitches it. stdout carries the protocol only (logs go to stderr). Zed: add to settings.json\n  \"agent_servers\": { \"PenguinHarness\": { \"command\": \"penguin\", \"args\": [\"acp\"] } }")
    .action(async (opts) => setExit(await (await import("./acp/acp-command.js")).acpCommand(opts)));

  const config = program.command("config").description("edit the project's models and the agent's vault");
  const model = config.command("model").description("models of the project (.project_config.toml)");
  agentOptions(
    model
      .command("add")
      .description("add a model entry, or update the fields given of an existing one (the first model added becomes the default)")
      .requiredOption("--provider <provider>", "provider name, e.g. openai, anthropic, deepseek, or your own")
      .requiredOption("--model-id <id>", "model id as the provider names it")
      .option("--client-type <type>", "wire protocol: openai-chat, openai-responses, anthropic-messages, gemini")
      .option("--base-url <url>", "protocol root, e.g. https://api.openai.com/v1")
      .option("--api-key <key>", "API key, sent only to this entry's base URL (an empty key is refused)")
      .option("--no-key", "the endpoint takes no API key (a local Ollama or vLLM): none is sent, not even from the environment")
      .option("--context-window <tokens>", "context window in tokens", positiveInt)
      .option("--max-tokens <tokens>", "output cap per request", positiveInt)
      .option("--display-name <name>", "name shown in lists")
      .option("--vision", "the model reads images")
      .option("--no-vision", "the model does not read images")
      .option("--fast-mode", "ask for the provider's priority tier")
      .option("--no-fast-mode", "do not ask for the priority tier")
      .option("--price-cache-read <usd>", "USD per million cached input tokens", nonNegativeNumber)
      .option("--price-cache-write <usd>", "USD per million uncached input tokens", nonNegativeNumber)
      .option("--price-output <usd>", "USD per million output tokens", nonNegativeNumber)
      .option("--set-default", "make it the project's default model")
      .option("--check", "send one small request first (reports the latency and the model's answer, or the error); a failed check does not make the entry the default")
      .option("--force", "with --check: make the entry the default even when the check fails")
      .addHelpText(
        "after",
        `
Examples:
  penguin config model add --provider deepseek --model-id deepseek-chat --client-type openai-chat \\
      --base-url https://api.deepseek.com --api-key sk-... --check
  penguin config model add --provider ollama --model-id qwen3:8b --client-type openai-chat \\
      --base-url http://127.0.0.1:11434/v1 --no-key --check`,
      ),
    false,
  ).action(async (opts) => setExit(await (await import("./commands/config-model.js")).modelAdd(opts)));
  agentOptions(
    model
      .command("test")
      .description("send one small request to a saved entry: the latency and the model's answer, or the error (exit 3 auth, 2 misconfigured, 1 other)")
      .argument("<provider>", "provider of the entry")
      .argument("<model-id>", "model id of the entry"),
    false,
  ).action(async (provider: string, modelId: string, opts) => setExit(await (await import("./commands/config-model.js")).modelTest(provider, modelId, opts)));
  agentOptions(
    model.command("default").description("set the project's default model").requiredOption("--provider <provider>", "provider").requiredOption("--model-id <id>", "model id"),
    false,
  ).action(async (opts) => setExit(await (await import("./commands/config-model.js")).modelDefault(opts)));
  agentOptions(
    model.command("vision").description("set the model that describes images for models without vision").requiredOption("--provider <provider>", "provider").requiredOption("--model-id <id>", "model id"),
    false,
  ).action(async (opts) => setExit(await (await import("./commands/config-model.js")).modelVision(opts)));
  agentOptions(
    model.command("remove").description("remove a model entry").requiredOption("--provider <provider>", "provider").requiredOption("--model-id <id>", "model id"),
    false,
  ).action(async (opts) => setExit(await (await import("./commands/config-model.js")).modelRemove(opts)));
  agentOptions(model.command("list").description("list the models (* = default, keys masked)"), false).action(async (opts) =>
    setExit(await (await import("./commands/config-model.js")).modelList(opts)),
  );

  const vault = config.command("vault").description("secrets of an agent, given to its commands as environment variables (never to the model)");
  agentOptions(
    vault
      .command("set")
      .description("set a secret")
      .requiredOption("--key <name>", "variable name (letters, digits, _)")
      .requiredOption("--value <value>", "the secret; '-' reads it from stdin (keeps it out of shell history)"),
  ).action(async (opts) => setExit(await (await import("./commands/config-vault.js")).vaultSet(opts)));
  agentOptions(vault.command("list").description("list the secrets (values masked)")).action(async (opts) =>
    setExit(await (await import("./commands/config-vault.js")).vaultList(opts)),
  );
  agentOptions(vault.command("remove").description("remove a secret").requiredOption("--key <name>", "variable name")).action(async (opts) =>
    setExit(await (await import("./commands/config-vault.js")).vaultRemove(opts)),
  );

  agentOptions(program.command("sessions").description("list sessions, most recent first: id, start, status, cost, title (fits 100 columns)"))
    .option("--all", "list every session (default: the 20 most recent)")
    .option("--wide", "every column, however wide: adds the model and the workspace, titles cut at 48")
    .option("--json", "one JSON object: the total and every field of each listed session")
    .addOption(new Option("--limit <n>", "how many to list").argParser(positiveInt).default(20))
    .option("--watch", "then follow the sessions: a line per new or changed session (from the server's feed when one is reachable, else from the local traces)")
    .option("--server <url>", "with --watch: the server (default: the one running on the data root; signs in with PENGUIN_PASSWORD)")
    .option("--user <id>", "with --watch: user to sign in as (default: admin)")
    .action(async (opts) => {
      const listed = await (await import("./commands/sessions.js")).sessionsCommand(opts);
      setExit(opts.watch === true && listed === 0 ? await (await import("./commands/watch.js")).watchCommand("sessions", opts) : listed);
    });

  program
    .command("attach")
    .description("follow a session live, as the chat shows it: through the running server (signs in with PENGUIN_PASSWORD; y/n on stdin answers approvals), else from its local trace; Ctrl-C detaches, the task keeps running")
    .argument("<sid>", "session id")
    .option("--server <url>", "the server (default: the one running on the data root)")
    .option("--user <id>", "user to sign in as (default: admin)")
    .option("--root <dir>", "data root whose server to find (default: PENGUIN_HOME, else ~/.penguin/data)")
    .action(async (sid: string, opts) => setExit(await (await import("./commands/attach.js")).attachCommand(sid, opts)));

  agentOptions(program.command("usage").description("tokens and cost of the project, from the traces (CLI, server and SDK sessions alike), priced now"))
    .option("--since <age|date>", "only requests since an age (30m, 24h, 7d, 2w) or a local date (YYYY-MM-DD)")
    .option("--by <key>", "group by day (default), model, agent or session")
    .option("--json", "print one JSON object: the rows, the totals and their costs")
    .option("--watch", "then follow the project's usage totals: a line each time they change (from the server's feed when one is reachable, else from the local traces)")
    .option("--server <url>", "with --watch: the server (default: the one running on the data root; signs in with PENGUIN_PASSWORD)")
    .option("--user <id>", "with --watch: user to sign in as (default: admin)")
    .action(async (opts) => {
      const reported = await (await import("./commands/usage.js")).usageCommand(opts);
      setExit(opts.watch === true && reported === 0 ? await (await import("./commands/watch.js")).watchCommand("usage", opts) : reported);
    });

  const projections = program.command("projections").description("the read models (projections.db) built from the traces: sessions, usage, timeline");
  projections
    .command("rebuild")
    .description("rebuild the read models from every trace line into a fresh file and swap it in (not while a server runs on the root)")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .option("--only <name>", "rebuild one projection: sessions, usage or timeline")
    .option("--threads <n>", "1 or 2 threads for a full rebuild (default: two when a core is idle and the traces pass 32 MB, else one)")
    .option("--database <url>", "rebuild the projections kept in this PostgreSQL database (postgres://…, the servers' --database; default: PENGUIN_DATABASE_URL when it is one) into a fresh schema swapped in atomically; servers may keep running")
    .option("--json", "print the summary as one JSON object")
    .action(async (opts) => setExit(await (await import("./commands/projections.js")).projectionsRebuild(opts)));
  projections
    .command("status")
    .description("per projection: version, files and events applied, skipped lines, lag behind the traces")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .option("--database <url>", "the projections kept in this PostgreSQL database (postgres://…; default: PENGUIN_DATABASE_URL when it is one) instead of <root>/projections.db")
    .option("--json", "print one JSON object per projection")
    .action(async (opts) => setExit(await (await import("./commands/projections.js")).projectionsStatus(opts)));

  const trash = program.command("trash").description("deleted sessions, kept under <root>/.trash until purged (owners restore them in the web)");
  trash
    .command("list")
    .description("the trashed sessions, most recently deleted first")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .option("--project <id>", "only this project's")
    .option("--json", "one JSON object per session")
    .action(async (opts) => setExit(await (await import("./commands/trash.js")).trashList(opts)));
  trash
    .command("purge")
    .description("delete trashed sessions for good: all of them, or those deleted more than --older-than days ago")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .option("--older-than <days>", "only sessions deleted at least this many days ago")
    .option("--json", "print the result as one JSON object")
    .action(async (opts) => setExit(await (await import("./commands/trash.js")).trashPurge(opts)));

  const otel = program.command("otel").description("OpenTelemetry: sessions as GenAI spans over OTLP/HTTP (a projection of the trace)");
  agentOptions(otel.command("export").description("send past sessions as spans (the same ids each time, so a collector recognises a repeat)").argument("[sid]", "session id (or --since)"))
    .option("--since <date>", "every session active since a local date (YYYY-MM-DD) or an ISO time")
    .option("--endpoint <url>", "the OTLP/HTTP collector (base URL or …/v1/traces; default: OTEL_EXPORTER_OTLP_ENDPOINT)")
    .option("--contents", "also send prompts, answers, tool arguments and results (off by default)")
    .action(async (sid: string | undefined, opts) => setExit(await (await import("./commands/otel.js")).otelExport(sid, opts)));

  const hooks = program.command("hooks").description("a workspace's own hooks (.penguin/hooks.json): they run only once you trusted the file as it is");
  hooks
    .command("show")
    .description("the workspace's hook commands and whether they are trusted")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .option("--workspace <dir>", "the workspace (default: the current directory)")
    .action(async (opts) => setExit(await (await import("./commands/hooks.js")).hooksShow(opts)));
  hooks
    .command("trust")
    .description("trust the workspace's .penguin/hooks.json as it is now (an edit needs a new trust)")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .option("--workspace <dir>", "the workspace (default: the current directory)")
    .action(async (opts) => setExit(await (await import("./commands/hooks.js")).hooksTrust(opts)));

  const trace = program.command("trace").description("read traces");
  agentOptions(trace.command("show").description("summarize a session's trace: tasks, requests, tools, tokens, retries, compactions, totals").argument("<sid>", "session id"))
    .option("--verbose", "also show each tool call's output, collapsed")
    .action(async (sid: string, opts) => setExit(await (await import("./commands/trace-show.js")).traceShow(sid, opts)));

  agentOptions(
    program
      .command("replay")
      .description("re-execute a recorded session through the engine and compare: ends with identical (exit 0) or diverged at N (exit 1)")
      .argument("<sid>", "session id, or a folder of recorded traces (e.g. fixtures/traces/tools)"),
  )
    .option("--tools <mode>", "rerun (default): run the tools again in a fresh copy of the workspace; recorded: answer them from the recording")
    .option("--sandbox", "require the bubblewrap sandbox for re-run commands (the default where bwrap can run): refuse to start where it cannot")
    .option("--no-sandbox", "re-run the recording's commands unsandboxed, with your user's full access")
    .option("--workspace <dir>", "with rerun: copy this folder as the workspace (default: the recording's workspace/ folder, else the session's workspace as it is now)")
    .option("--json", "print one JSON line: the replay's session id and verdict")
    .option("--verbose", "show tool outputs in full")
    .action(async (sid: string, opts) => setExit(await (await import("./commands/replay.js")).replayCommand(sid, opts)));

  agentOptions(program.command("demo").description("replay the shipped demo session (no model, key or network needed) and say what to try next"))
    .option("--fast", "no pacing: print the replay as fast as it runs")
    .action(async (opts) => setExit(await (await import("./commands/replay.js")).demoCommand(opts)));

  agentOptions(program.command("inspect").description("a session's state at a record: next context, open calls, approvals, carry-over, usage, files").argument("<sid>", "session id"))
    .option("--at <n>", "record number from the session's start (across rotated files) or position NNN:LLLLLL (default: the last)")
    .option("--diff <m>", "show what changed from record M to the --at record")
    .option("--json", "print the state as one JSON line")
    .option("--files [path]", "the workspace's files at the record (from its checkpoints), or one file's bytes")
    .action(async (sid: string, opts) => setExit(await (await import("./commands/inspect.js")).inspectCommand(sid, opts)));

  agentOptions(program.command("diff").description("unified diff of a session's workspace files between two records").argument("<sid>", "session id").argument("[path]", "only this file or folder"))
    .option("--from <n>", "record number or position NNN:LLLLLL")
    .option("--to <m>", "record number or position NNN:LLLLLL")
    .action(async (sid: string, path: string | undefined, opts) => setExit(await (await import("./commands/workspace-files.js")).diffCommand(sid, path, opts)));

  agentOptions(program.command("rewind").description("rewind a session in place to a record: its workspace files, its conversation, or both (undoable)").argument("<sid>", "session id"))
    .option("--to <n>", "record number or position NNN:LLLLLL to go back to")
    .option("--files", "only the workspace's files")
    .option("--conversation", "only the conversation")
    .option("--both", "files and conversation (the default)")
    .option("--force", "rewind even over changes made outside the session since its last checkpoint (they are recorded first)")
    .option("--json", "print the result as one JSON line")
    .action(async (sid: string, opts) => setExit(await (await import("./commands/workspace-files.js")).rewindCommand(sid, opts)));

  agentOptions(program.command("fork").description("start a new session from a session's state at a record (any record, also mid-turn)").argument("<sid>", "session id"))
    .option("--at <n>", "record number or position NNN:LLLLLL to fork after")
    .option("--json", "print the new session as one JSON line")
    .action(async (sid: string, opts) => setExit(await (await import("./commands/inspect.js")).forkCommand(sid, opts)));

  const serverHelp = (cmd: Command) =>
    cmd
      .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
      .option("--port <port>", "port (default: PORT, else 7364; 0 picks a free one)")
      .option("--host <host>", "address to listen on (default: HOST, else 127.0.0.1)")
      .option("--reindex", "rebuild the projections (sessions, usage, timeline) from the traces before serving")
      .option("--database <url>", "keep users, logins, projects and members in PostgreSQL (postgres://…; default: PENGUIN_DATABASE_URL, else <root>/facts.db)")
      .option("--no-sandbox", "run session commands unsandboxed (default: in a bubblewrap sandbox where bwrap can run)")
      .option("--sandbox-network", "let sandboxed session commands use the network (needed to open a dev server a session starts)")
      .option("--workspace-root <dir...>", "folders under which session workspaces may lie (default: PENGUIN_WORKSPACE_ROOTS, else only each agent's workspaces/ folder; admins can change it in the settings)")
      .option("--allowed-host <name...>", "host names the server answers to besides localhost, 127.0.0.1 and [::1] (default: PENGUIN_ALLOWED_HOSTS)")
      .option("--otel-endpoint <url>", "send every session's spans live to this OTLP/HTTP collector (default: OTEL_EXPORTER_OTLP_ENDPOINT when set; off otherwise)")
      .option("--otel-contents", "with OpenTelemetry export: include prompts, answers, tool arguments and results (off by default)");
  const server = serverHelp(program.command("server").description("run the multi-user HTTP + SSE server (API only); one server per data root"))
    .action(async (opts) => setExit(await (await import("./commands/server.js")).serverCommand(opts, false)));
  server
    .command("migrate-db")
    .description("copy the data root's facts.db (users, logins, projects, members, settings) into an empty PostgreSQL database")
    .requiredOption("--to <url>", "the PostgreSQL database (postgres://user@host/db) to fill; then start servers with --database <url>")
    .option("--root <dir>", "data root (default: PENGUIN_HOME, else ~/.penguin/data)")
    .action(async (opts) => setExit(await (await import("./commands/server.js")).migrateDbCommand(opts)));
  serverHelp(program.command("web").description("run the server with the web app and open it in the browser (attaches to a running server on the same root)"))
    .option("--no-open", "do not open the browser")
    .action(async (opts) => setExit(await (await import("./commands/server.js")).serverCommand(opts, true)));

  program
    .command("docs")
    .description("serve the built documentation site on this machine and open it in the browser (build it with npm run build)")
    .option("--port <port>", "port (default: 0, a free one)")
    .option("--host <host>", "address to listen on (default: 127.0.0.1)")
    .option("--dir <folder>", "the built site to serve (default: apps/docs/site/.vitepress/dist of this checkout)")
    .option("--no-open", "do not open the browser")
    .action(async (opts) => setExit(await (await import("./commands/docs.js")).docsCommand(opts)));

  unknownOptionsFirst(program);
  return program;
}
