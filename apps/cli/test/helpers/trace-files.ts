// Finding and reading a session's trace files in a test data root, to check what the CLI
// left behind (the trace is the record; stdout is only a view of it).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnvelope, type OmniMessage } from "@penguin/omnimessage";

export function traceFilesOf(root: string, sessionId: string, agent = "default_agent", project = "default_project"): string[] {
  const dir = join(root, project, "agents", agent, "traces");
  let dates: string[];
  try {
    dates = readdirSync(dir);
  } catch {
    return [];
  }
  return dates
    .flatMap((d) => readdirSync(join(dir, d)).map((name) => join(dir, d, name)))
    .filter((f) => f.includes(`${sessionId}_`))
    .sort();
}

export function traceMessages(root: string, sessionId: string): OmniMessage[] {
  return traceFilesOf(root, sessionId).flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .flatMap((l) => {
        const m = parseEnvelope(JSON.parse(l));
        return m === undefined ? [] : [m];
      }),
  );
}

/** The session id printed on stderr by `penguin run` ("session <id> · …"). */
export function sessionIdFrom(stderr: string): string {
  const m = /session (session-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f]{8})/.exec(stderr);
  if (m === null) throw new Error(`no session id in:\n${stderr}`);
  return m[1]!;
}
