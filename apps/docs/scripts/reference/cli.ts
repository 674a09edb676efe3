/**
 * The CLI reference, from the commander program itself: `buildProgram` is walked command by
 * command (arguments, options with their defaults, help text added after) and the exit codes
 * come from the EXIT table the commands return. Nothing here names a command: a command
 * added to apps/cli/src/program.ts appears on the next generation.
 */
import type { EventEmitter } from "node:events";
import type { Command, Option } from "commander";
import { blocks, code, pageHeader, table, text, type Lang } from "./markdown.js";

export interface CliFacts {
  program: Command;
  exitCodes: Readonly<Record<string, number>>;
}

/** Every command below the root, depth first, with its full name (`config model add`). */
export function commandsOf(program: Command): { path: string; command: Command }[] {
  const out: { path: string; command: Command }[] = [];
  const visit = (command: Command, prefix: string) => {
    for (const child of command.commands) {
      const path = prefix === "" ? child.name() : `${prefix} ${child.name()}`;
      out.push({ path, command: child });
      visit(child, path);
    }
  };
  visit(program, "");
  return out;
}

const WORDS = {
  en: {
    title: "CLI reference",
    intro: "Every command of `penguin`, its arguments and options, and the exit codes every command shares.",
    exit: "Exit codes",
    code: "Code",
    meaning: "Meaning",
    global: "Global options",
    args: "Arguments",
    options: "Options",
    name: "Name",
    option: "Option",
    description: "Description",
    default: "Default",
    required: "required",
    optional: "optional",
    variadic: "one or more",
    more: "From `--help`:",
    subcommands: "Subcommands:",
  },
  zh: {
    title: "CLI 参考",
    intro: "`penguin` 的全部命令、参数与选项，以及所有命令共用的退出码。",
    exit: "退出码",
    code: "代码",
    meaning: "含义",
    global: "全局选项",
    args: "参数",
    options: "选项",
    name: "名称",
    option: "选项",
    description: "说明",
    default: "默认值",
    required: "必填",
    optional: "可选",
    variadic: "一个或多个",
    more: "`--help` 中的补充说明：",
    subcommands: "子命令：",
  },
} as const;

const EXIT_MEANING: Record<string, { en: string; zh: string }> = {
  done: { en: "the task is done (or the command succeeded)", zh: "任务完成（或命令成功）" },
  failed: { en: "the task failed", zh: "任务失败" },
  usage: { en: "usage or configuration error", zh: "用法或配置错误" },
  auth: { en: "the provider rejected the API key", zh: "提供方拒绝了 API key" },
  aborted: { en: "aborted (Ctrl-C, SIGINT)", zh: "被中止（Ctrl-C、SIGINT）" },
};

function defaultOf(option: Option): string {
  if (option.defaultValue === undefined || option.negate) return "";
  return code(JSON.stringify(option.defaultValue));
}

/** The options `--help` shows for the command (its own, plus the help flag). */
function optionRows(command: Command, lang: Lang): string[][] {
  const w = WORDS[lang];
  return command.createHelp().visibleOptions(command).map((option) => [
    code(option.flags),
    `${text(option.description)}${option.mandatory ? ` (${w.required})` : ""}`,
    defaultOf(option),
  ]);
}

/** Help text a command adds after its usage (examples, notes), as commander prints it. */
function helpAfter(command: Command): string {
  const chunks: string[] = [];
  // commander keeps addHelpText("after") as listeners of the afterHelp event.
  const listeners = (command as unknown as EventEmitter).listeners("afterHelp") as ((context: { error: boolean; command: Command; write: (s: string) => void }) => void)[];
  for (const listener of listeners) listener({ error: false, command, write: (s: string) => chunks.push(s) });
  return chunks.join("").replace(/^\n+|\s+$/g, "");
}

function commandSection(path: string, command: Command, lang: Lang): string {
  const w = WORDS[lang];
  const args = command.registeredArguments.map((arg) => [
    code(arg.variadic ? `${arg.name()}...` : arg.name()),
    text(arg.description),
    arg.required ? w.required : w.optional,
  ]);
  const usage = `penguin ${path} ${command.usage()}`.trim();
  const after = helpAfter(command);
  const children = command.commands.map((c) => code(c.name()));
  return blocks([
    `## penguin ${path}`,
    text(command.description()),
    "<!-- not-run: the usage line commander prints -->\n```text\n" + usage + "\n```",
    children.length > 0 ? `${w.subcommands} ${children.join(", ")}` : "",
    args.length > 0 ? `**${w.args}**\n\n${table([w.name, w.description, ""], args)}` : "",
    `**${w.options}**\n\n${table([w.option, w.description, w.default], optionRows(command, lang))}`,
    after === "" ? "" : `${w.more}\n\n<!-- not-run: help text of the command, as --help prints it -->\n\`\`\`text\n${after}\n\`\`\``,
  ]).trimEnd();
}

export function cliReferencePage(facts: CliFacts, lang: Lang): string {
  const w = WORDS[lang];
  const exitRows = Object.entries(facts.exitCodes)
    .sort(([, a], [, b]) => a - b)
    .map(([name, value]) => [code(String(value)), code(name), EXIT_MEANING[name]?.[lang] ?? text(name)]);
  return blocks([
    pageHeader(lang, w.title, code("apps/cli/src/program.ts") + ", " + code("apps/cli/src/exit-codes.ts"), w.intro).trimEnd(),
    "::: v-pre",
    `## ${w.exit}`,
    table([w.code, w.name, w.meaning], exitRows),
    `## ${w.global}`,
    table([w.option, w.description, w.default], optionRows(facts.program, lang)),
    ...commandsOf(facts.program).map(({ path, command }) => commandSection(path, command, lang)),
    ":::",
  ]);
}
