// Server shutdown releases live subagents: a web session starts a background subagent whose
// own tool starts a `sleep` in the background; when the server closes (its graceful shutdown
// disposes every session, and a session's dispose releases its live children), the child's
// `sleep` is gone (process.kill(pid, 0) answers ESRCH). Waits are for conditions, not times.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "@penguin/testkit";
import { eventually, startHarness, type Harness } from "./helpers/harness.js";
import { newSession, openStream, text, untilRunsEnded } from "./helpers/session.js";

let h: Harness | undefined;
let marker = "";
afterEach(async () => {
  for (const pid of pidsOf(marker)) if (!gone(pid)) process.kill(pid, "SIGKILL");
  await h?.cleanup();
  h = undefined;
});

/** Pids of live (not zombie) processes whose command line carries `mark`. */
function pidsOf(mark: string): number[] {
  if (mark === "") return [];
  const table = execFileSync("ps", ["-eo", "pid,stat,args"], { encoding: "utf8" });
  return table
    .split("\n")
    .filter((line) => line.includes(mark) && !line.includes("ps -eo") && !/^\s*\d+\s+Z/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

const firstUserText = (r: RecordedRequest) => r.messages.find((m) => m.role === "user" && m.kind === "text")?.text ?? "";

describe("server shutdown and subagents", () => {
  it("closing the server stops a background subagent's background command", async () => {
    marker = `${5000 + Math.floor(Math.random() * 4000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
    h = await startHarness();
    // The parent and the child share the testkit model: each request is answered by the next
    // turn of the conversation its first user text names.
    const turns: Record<string, ScriptedTurn[]> = {
      PARENT: [
        { toolCalls: [{ name: "run_subagent", arguments: { prompt: "CHILD: sleep", run_in_background: true, description: "start a sleeper" } }] },
        { text: "the sleeper runs" },
      ],
      CHILD: [
        { toolCalls: [{ name: "exec_command", arguments: { cmd: `sleep ${marker}`, run_in_background: true, description: "sleep in the background" } }] },
        { text: "sleeping" },
      ],
    };
    const used: Record<string, number> = { PARENT: 0, CHILD: 0 };
    for (let i = 0; i < 10; i++) {
      h.kit.enqueue((r) => {
        const key = firstUserText(r).includes("CHILD") ? "CHILD" : "PARENT";
        return turns[key]?.[used[key]!++] ?? { text: "nothing more" };
      });
    }
    const c = await h.admin();
    const sid = await newSession(c, { workspace: h.workspace, approvalMode: "allow-all" });
    const sse = await openStream(c, sid);
    await c.post(`/api/sessions/${sid}/tasks`, text("PARENT: start a sleeper in a subagent"));
    await untilRunsEnded(sse, 1);
    await sse.close();
    await eventually(() => pidsOf(marker).length > 0, "the child's sleep to start");
    const pids = pidsOf(marker);

    await h.server.close();

    // A sandboxed command's namespace ends with a SIGTERM, a grace period and a SIGKILL to its
    // init (about 2 s); the default budget of tries is about a second of spinning.
    await eventually(() => pids.every(gone), `the sleep (pids ${pids.join(", ")}) to be gone`, 5_000_000);
    expect(pids.every(gone)).toBe(true);
  });
});
