/**
 * `-m -`: the prompt read whole from stdin, so long prompts and files can be piped in
 * (`git diff | penguin run -m -`). Refuses a terminal: waiting silently for EOF there would
 * look like a hang.
 */
import { UsageError } from "../cli-error.js";

export async function readAllStdin(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (input.isTTY === true) throw new UsageError("-m - reads the prompt from stdin, but stdin is a terminal; pipe the prompt in or pass it as -m TEXT");
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
