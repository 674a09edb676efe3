/**
 * One yes/no question on the terminal, for `penguin run --approve always-ask|read-only` when
 * stdin and stderr are terminals: `? Approve this tool call? [Y/n]`. Enter or y means yes;
 * n, EOF (Ctrl-D) and Ctrl-C mean no, since a Ctrl-C during a question denies the call
 * before it ever aborts the run (the chat's interrupt ladder, SPEC §8). The run's abort
 * signal also settles the question. Each question opens and closes its own readline so the
 * terminal is back in normal mode while the task streams. node:readline is loaded when a
 * question is asked: a run that never asks (allow-all, a pipe) does not pay its compile.
 */

export type YesNo = "yes" | "no";

export const APPROVAL_QUESTION = "? Approve this tool call? [Y/n] ";

export function parseYesNo(answer: string): YesNo {
  const a = answer.trim().toLowerCase();
  return a === "" || a === "y" || a === "yes" ? "yes" : "no";
}

export function askOnTerminal(question: string, signal: AbortSignal | undefined): Promise<YesNo> {
  return new Promise((resolve) => {
    const rl = process.getBuiltinModule("node:readline").createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let settled = false;
    const settle = (answer: YesNo): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      rl.close();
      resolve(answer);
    };
    const onAbort = (): void => {
      process.stderr.write("\n");
      settle("no");
    };
    if (signal?.aborted === true) return settle("no");
    signal?.addEventListener("abort", onAbort, { once: true });
    rl.on("SIGINT", () => {
      process.stderr.write("^C\n");
      settle("no");
    });
    rl.on("close", () => settle("no"));
    rl.question(question, (answer) => settle(parseYesNo(answer)));
  });
}
