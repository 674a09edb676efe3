/**
 * Request bodies that copy tool outputs' JSON text from the trace instead of escaping and
 * encoding each string again.
 *
 * A resumed session's first request carries its whole history, and tool outputs are most of
 * its bytes. Where the trace reader kept an output's JSON string literal as its line holds it
 * (`rawOutputJsonOf`, omnimessage raw-output.ts), a protocol's encoder puts `outputForWire(item)`
 * in the body where the output goes, and serialises the body with `encodeBody`: it stringifies
 * the body with a placeholder for each such output, then puts the body's bytes together with
 * each output's bytes in its placeholder's place. The result parses to the same JSON value as
 * the plain `JSON.stringify` (the literal parses to exactly the output string), and when the
 * trace was written by our writer, which escapes as `JSON.stringify` does, it is byte for
 * byte the same body.
 *
 * The output-cap's token estimate measures the same body with `serializedLength`: a kept
 * output counts as the length of its JSON text, read off the kept bytes where they are all
 * ASCII (so an output decoded on read stays undecoded), else of the string escaped as before;
 * for our writer's lines that is exactly the length `JSON.stringify` gives. Anywhere else
 * such a value turns into its plain string, so every other use of the body sees what it saw
 * before.
 */
import { randomBytes } from "node:crypto";
import { asciiRawOutputLength, rawOutputJsonOf, type ToolCallOutputPayload } from "@penguin/omnimessage";

/** The encoding in progress: the placeholders' token (made at the first output) and the outputs met so far, in document order. */
let encoding: { token: string | undefined; outputs: Uint8Array[] } | undefined;

/** A length measure in progress (`serializedLength`): what the kept outputs add beyond the `""` each stands as. */
let measuring: { extra: number } | undefined;

/** A fresh random token per body: no text a body can hold contains it by chance. */
const newToken = (): string => `penguin-raw-output-${randomBytes(12).toString("hex")}-`;

/** A tool output in a wire body whose JSON text the trace reader kept. */
export class RawOutput {
  constructor(
    /** The payload, not its output: reading that would decode an output kept to be decoded on read. */
    readonly item: ToolCallOutputPayload,
    readonly json: Uint8Array,
  ) {}

  /** Inside `encodeBody`: a placeholder for the bytes; inside `serializedLength`: `""`, its length counted aside; anywhere else: the string itself. */
  toJSON(): string {
    if (measuring !== undefined) {
      measuring.extra += (asciiRawOutputLength(this.item) ?? JSON.stringify(this.item.output).length) - 2;
      return "";
    }
    if (encoding === undefined) return this.item.output;
    encoding.token ??= newToken();
    encoding.outputs.push(this.json);
    return `${encoding.token}${encoding.outputs.length - 1}`;
  }
}

/** The value to put in a body for `item.output`: its kept JSON text where there is one, else the string. */
export function outputForWire(item: ToolCallOutputPayload): string | RawOutput {
  const json = rawOutputJsonOf(item);
  return json === undefined ? item.output : new RawOutput(item, json);
}

/**
 * `stringify(body)` (JSON.stringify unless a protocol needs its own), with each `RawOutput`'s
 * bytes in place of its placeholder. A string when the body holds none, as before.
 */
export function encodeBody(body: unknown, stringify: (value: unknown) => string = JSON.stringify): string | Buffer {
  // A body without kept outputs (every live request) makes no token and is the plain string.
  const current: { token: string | undefined; outputs: Uint8Array[] } = { token: undefined, outputs: [] };
  encoding = current;
  let text: string;
  try {
    text = stringify(body);
  } finally {
    encoding = undefined;
  }
  const token = current.token;
  if (token === undefined) return text;
  const skeleton = Buffer.from(text, "utf8");
  const pieces: Uint8Array[] = [];
  let at = 0;
  current.outputs.forEach((json, i) => {
    const mark = `"${token}${i}"`;
    const found = skeleton.indexOf(mark, at, "latin1");
    if (found < 0) throw new Error(`encodeBody: the placeholder of tool output ${i} is missing from the body`);
    pieces.push(skeleton.subarray(at, found), json);
    at = found + mark.length;
  });
  pieces.push(skeleton.subarray(at));
  return Buffer.concat(pieces);
}

/**
 * `stringify(value).length` (JSON.stringify unless a protocol needs its own) without decoding
 * or escaping kept outputs that are all ASCII: each counts as its kept JSON text's length.
 */
export function serializedLength(value: unknown, stringify: (value: unknown) => string = JSON.stringify): number {
  const current = { extra: 0 };
  measuring = current;
  try {
    return stringify(value).length + current.extra;
  } finally {
    measuring = undefined;
  }
}
