/**
 * Keeping tool outputs' JSON text as resume reads it, so the first request after a resume
 * copies those bytes into its body instead of escaping and encoding every output again
 * (omnimessage raw-output.ts, models wire-body.ts).
 *
 * Which bytes of a line are the output's literal is proven from the line's text and its
 * parsed envelope, never guessed; a line the proof does not fit keeps no raw text and is
 * encoded the ordinary way. The proof (`outputLiteralSpan`), for a line that parsed as JSON:
 * - the text ends with exactly what follows `output` in the envelope as JSON.stringify
 *   writes it: the payload's later members, `}`, the envelope's members after `payload`, `}`;
 *   so a string literal ends right before that tail, closing a member two levels down whose
 *   object is followed by the envelope's last members (the payload);
 * - the first `"output":"` in the text, preceded by `{` or `,`, is a key named `output` (its
 *   second quote follows a letter, so it is not inside a string, and the first one follows a
 *   separator), and its value's first unescaped quote is the one that closes that literal.
 * Both hold only where the value literal at that key is the payload's `output` as parsed
 * (a duplicate key would put another literal there, and the tail check would fail). Lines
 * with NUL bytes, surrounding blanks or an upcast are left out by the reader before this.
 * An all-ASCII line's payload is then replaced by a copy whose output is decoded from the
 * kept bytes when first read, instead of being held twice (raw-output.ts `withOutputDecodedOnRead`).
 */
import { keepRawOutputJson, withOutputDecodedOnRead, type OmniMessage, type ToolCallOutputPayload } from "@penguin/omnimessage";

/** Outputs shorter than this are not worth keeping: their escaping costs less than the bookkeeping. */
export const RAW_OUTPUT_MIN_CHARS = 512;

const OUTPUT_KEY = '"output":"';

/** `,"k":v` for each of `keys` of `record`, as JSON.stringify writes members. */
function membersText(record: Record<string, unknown>, keys: readonly string[], from: number): string {
  let text = "";
  for (let i = from; i < keys.length; i++) text += `,${JSON.stringify(keys[i])}:${JSON.stringify(record[keys[i]!])}`;
  return text;
}

/**
 * Where in `text` (the line `envelope` was parsed from) the JSON string literal of its payload's
 * `output` lies, quotes included: `[from, to)` in UTF-16 units; undefined where the layout does
 * not prove it (see the header).
 */
export function outputLiteralSpan(envelope: OmniMessage, text: string): { from: number; to: number } | undefined {
  const payload = envelope.payload as unknown as Record<string, unknown>;
  if (typeof payload.output !== "string") return undefined;
  const payloadKeys = Object.keys(payload);
  const envelopeKeys = Object.keys(envelope);
  const tail = `${membersText(payload, payloadKeys, payloadKeys.indexOf("output") + 1)}}${membersText(envelope as unknown as Record<string, unknown>, envelopeKeys, envelopeKeys.indexOf("payload") + 1)}}`;
  if (!text.endsWith(tail)) return undefined;
  const close = text.length - tail.length - 1;
  const key = text.indexOf(OUTPUT_KEY);
  if (key <= 0 || close <= key + OUTPUT_KEY.length - 1 || text.charCodeAt(close) !== 0x22) return undefined;
  const before = text.charCodeAt(key - 1);
  if (before !== 0x2c && before !== 0x7b) return undefined;
  const open = key + OUTPUT_KEY.length - 1;
  for (let quote = open + 1; ; quote++) {
    quote = text.indexOf('"', quote);
    if (quote < 0 || quote > close) return undefined;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 1) continue;
    return quote === close ? { from: open, to: close + 1 } : undefined;
  }
}

/**
 * Collects the byte spans of output literals in one buffer of lines, then copies them out of it
 * (before the reader reuses the buffer) into one allocation and keeps each beside its payload.
 */
export class RawOutputCollector {
  /** The tool output messages noted since the last flush (each one's payload is replaced there when decoded on read). */
  #messages: { payload: ToolCallOutputPayload }[] = [];
  #spans: number[] = [];
  /** Per payload: its line is all ASCII, so its output can be decoded from the kept bytes on read (raw-output.ts). */
  #ascii: boolean[] = [];
  #bytes = 0;

  /** `message` was decoded from `text`, verbatim, the bytes `[start, end)` of the buffer being read. */
  consider(message: OmniMessage, text: string, start: number, end: number): void {
    if (message.type !== "model_msg" || message.payload.type !== "tool_call_output" || message.payload.output.length < RAW_OUTPUT_MIN_CHARS) return;
    const span = outputLiteralSpan(message, text);
    if (span === undefined) return;
    // Byte offsets: the same as the text's where the line is ASCII (as many bytes as units);
    // otherwise the UTF-8 length of the short key prefix and tail around the literal.
    const ascii = end - start === text.length;
    const from = start + (ascii ? span.from : Buffer.byteLength(text.slice(0, span.from)));
    const to = end - (ascii ? text.length - span.to : Buffer.byteLength(text.slice(span.to)));
    this.#messages.push(message as unknown as { payload: ToolCallOutputPayload });
    this.#spans.push(from, to);
    // As many bytes as units and no U+FFFD: every byte was ASCII (an invalid byte decodes to
    // one U+FFFD, a valid sequence to fewer units than bytes).
    this.#ascii.push(ascii && !text.includes("\uFFFD"));
    this.#bytes += to - from;
  }

  /** Copies the spans noted since the last flush out of `buffer` and keeps them. */
  flush(buffer: Buffer): void {
    if (this.#messages.length === 0) return;
    const copy = Buffer.allocUnsafeSlow(this.#bytes);
    let at = 0;
    for (let i = 0; i < this.#messages.length; i++) {
      const from = this.#spans[2 * i]!;
      const to = this.#spans[2 * i + 1]!;
      buffer.copy(copy, at, from, to);
      const json = copy.subarray(at, at + (to - from));
      const message = this.#messages[i]!;
      // The envelope was just parsed from the line, and nothing else holds its payload yet.
      if (this.#ascii[i]) message.payload = withOutputDecodedOnRead(message.payload, json);
      else keepRawOutputJson(message.payload, json);
      at += to - from;
    }
    this.#messages = [];
    this.#spans = [];
    this.#ascii = [];
    this.#bytes = 0;
  }
}
