// The README's SDK example, runnable: `node --conditions=development --import tsx packages/core/examples/sdk.ts "your task"`.
// It uses the project's default model from PENGUIN_HOME (or ~/.penguin/data).
import { createAgent } from "@penguin/core";

const agent = await createAgent(); // data root: PENGUIN_HOME or ~/.penguin/data
const session = await agent.createSession({ workspaceDir: process.cwd() });
for await (const m of session.run(process.argv[2] ?? "List the files here", { approve: async () => "allow" })) {
  if (m.type === "model_msg" && m.payload.type === "text" && m.payload.role === "assistant") console.log(m.payload.text);
}
await session.dispose(); // one process runs a session at a time: dispose lets it go
const again = await agent.resumeSession({ sessionId: session.id }); // from the trace alone
console.log(`resumed ${again.id} with ${again.history().length} messages of history`);
await again.dispose();
