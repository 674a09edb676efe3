// The server under benchmark, as its own process (so its RSS is its own): startServer on the
// data root in PENGUIN_BENCH_ROOT, port 0, titles off (the bench measures the task stream,
// not the out-of-band title call), workspaces allowed under PENGUIN_BENCH_WORKSPACE_ROOT (the
// bench's temp folder), and one `READY <url>` line on stdout when it listens.
// SIGTERM stops it gracefully.
import { startServer } from "@penguin/server";

const root = process.env.PENGUIN_BENCH_ROOT;
if (root === undefined || root === "") {
  process.stderr.write("PENGUIN_BENCH_ROOT is not set\n");
  process.exit(2);
}
const workspaceRoot = process.env.PENGUIN_BENCH_WORKSPACE_ROOT;
const server = await startServer({ root, port: 0, env: {}, app: { generateTitles: false, ...(workspaceRoot ? { workspaceRoots: [workspaceRoot] } : {}) } });
process.stdout.write(`READY ${server.url}\n`);
process.once("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
