/**
 * The default texts of the optional prompt sections and of the compaction request.
 *
 * Each section prompt becomes the value of one section placeholder in the system prompt
 * ({{VAULT}}, {{SKILLS}}, {{MEMORY}}, {{SCHEDULES}}) after its own placeholders are filled:
 *   vault.prompt              {{VAULT_KEYS}}      key names, one `- NAME` line each
 *   skills.prompt             {{SKILL_METADATA}}  one "- `name` — description" line per skill
 *   schedules.prompt          {{SCHEDULE_LIST}}   one line per schedule/*.toml
 *   memory.prompt             {{MEMORY_DIR}} {{MEMORY_INDEX}}  the user scope
 *   memory.workspace_prompt   {{MEMORY_DIR}} {{MEMORY_INDEX}}  the current workspace's scope
 * Section prompts may also use the environment placeholders ({{CWD}}, {{AGENT_ID}}, …).
 * Changing a text here changes the defaults: bump KERNEL_VERSION with it.
 */

export const DEFAULT_VAULT_PROMPT = `# Vault

The user keeps secrets for this agent in its vault. Each one is set as an environment
variable in every command you run with exec_command (MCP servers started over stdio do not
get them). You know only their names:

{{VAULT_KEYS}}

Use a secret by name and let the shell expand it, for example
curl -H "Authorization: Bearer $API_TOKEN" ... or os.environ["API_TOKEN"] in Python.
Never print, echo, log or write a value anywhere: not in files, commit messages, command
lines you show, or answers, not even partly and not while debugging. If a task needs a secret
that is not listed, ask the user to add it with
penguin config vault set --key NAME --value ... (or in the agent settings of the web app);
never ask them to paste it into the conversation.
`;

export const DEFAULT_SKILLS_PROMPT = `# Skills

Skills are instruction packs for particular kinds of work, stored in
{{PROJECT_DIR}}/agents/{{AGENT_ID}}/agent_state/skills/<name>/SKILL.md, sometimes with scripts
or reference files next to them. Only a one-line description of each is listed here:

{{SKILL_METADATA}}

When a task matches a description, read that SKILL.md with read_file before you start and
follow it; open the files it points to only when you need them. When the user lists skills in
a [use_skills] block, read and follow every one of them. You may write a new skill (a folder
with a SKILL.md whose front matter has name and description) when the user asks you to
capture a procedure for later.
`;

export const DEFAULT_MEMORY_PROMPT = `# Memory

You have a memory that lasts across sessions: Markdown files you keep yourself with
read_file, write_file and edit_file. There are two scopes:
- user memory, in {{MEMORY_DIR}}: what holds in every workspace, such as the user's role,
  preferences, recurring instructions and corrections to how you work;
- workspace memory (described below when this session has one): what belongs to one
  workspace, such as its layout, conventions, commands that work and pitfalls met.

How memory is stored:
- One topic per file (for example preferences.md), starting with front matter:
    ---
    name: Short title
    description: one line on what is inside and when it matters
    updated_at: 2026-01-31
    ---
  followed by the content in plain Markdown.
- Each scope has a MEMORY.md index with one line per topic file:
    - [Short title](preferences.md) — the hook: when to read this file
  Only the indexes are shown to you when a session starts (the first 200 lines, at most
  25,000 characters each). Read a topic file when its hook looks relevant.

When to write:
- Save what will help in later sessions and cannot be read off the files themselves:
  stable preferences, decisions and their reasons, facts the user told you, lessons learned
  from mistakes.
- When the user asks you to remember or forget something, do it at once.
- Fix or delete memories that turn out wrong or stale, update updated_at when you change a
  file, and keep the index in step with the files and short.
- Never store secrets, one-off details of the current task, or what is already written in the
  project (README, AGENTS.md).

User memory index ({{MEMORY_DIR}}/MEMORY.md):
{{MEMORY_INDEX}}
`;

export const DEFAULT_MEMORY_WORKSPACE_PROMPT = `Workspace memory for {{CWD}} lives in {{MEMORY_DIR}} (the .workspace
file there records which folder it belongs to). Same format as user memory; put here what is
true of this workspace only.

Workspace memory index ({{MEMORY_DIR}}/MEMORY.md):
{{MEMORY_INDEX}}
`;

export const DEFAULT_SCHEDULES_PROMPT = `# Schedules

Scheduled tasks are TOML files in {{PROJECT_DIR}}/agents/{{AGENT_ID}}/agent_state/schedule/;
the file name (without .toml) is the task's identity. They run only while the PenguinHarness
server is up (penguin server or penguin web), which rescans the folder about every 30
seconds. Current schedules:

{{SCHEDULE_LIST}}

When the user asks for a recurring or delayed task, write or edit such a file:
    prompt = "What to do each time"             # required
    enabled = true                              # default false: written but paused
    start_at = "2026-02-01T09:00:00+08:00"      # required, ISO 8601 with a time zone
    period = "12h"                              # optional: minutes, hours or days (30m, 12h,
                                                # 7d), at least 5m; leave out for one run only
    end_at = "2026-03-01T00:00:00+08:00"        # optional, after start_at
    workspace = "/path/to/folder"               # each run starts a new session here
    provider = "..."                            # optional model for new sessions:
    model_id = "..."                            # give both or neither
  or, instead of workspace/provider/model_id, session_id = "session-..." to continue one
  existing session on every run. To pause a task, set enabled = false rather than deleting it.
`;

export const DEFAULT_COMPACTION_PROMPT = `This conversation is about to be replaced by a summary so the work can go on in a fresh
context. Write that summary now. It is all that will remain, so it must let you carry on
without the original messages. Cover, under these headings:

1. Goal: what the user asked for, in their terms, with every constraint and preference they
   stated.
2. Decisions: what was decided and why, including approaches that were tried and dropped,
   and the reason they were dropped.
3. State of the work: what is done, what is half done, and what was verified and how (tests
   run and their results).
4. Files: every file created, changed or read that still matters, with a few words on each.
5. Open problems: unsolved errors, questions waiting for the user, doubts.
6. Next steps: the concrete next actions, in order.

Keep exact names: paths, commands, identifiers, error messages, ids and numbers. Leave out
pleasantries and anything settled that no longer matters. Do not call tools. Answer with the
summary only, inside [summary] and [/summary].
`;
