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
 * A history list the wire cache already holds encoded (wire-cache.ts) goes into a body as an
 * `EncodedJson`: the same placeholder, replaced by the list's few byte chunks, which are
 * referenced, not copied (`encodeBodyChunks`): the body is then handed to the transport as
 * those chunks, so a request's cost does not grow with the bytes of its history.
 *
 * The output-cap's token estimate measures the same body with `serializedLength`: a kept
 * output counts as the length of its JSON text, read off the kept bytes (their byte length
 * where all ASCII, else their UTF-16 length counted byte by byte), so no output is decoded or
 * escaped again; for our writer's lines that is exactly the length `JSON.stringify` gives. Anywhere else
 * such a value turns into its plain string, so every other use of the body sees what it saw
 * before.
 */
import { randomBytes } from "node:crypto";
import { asciiRawOutputLength, rawOutputJsonOf, type ToolCallOutputPayload } from "@penguin/omnimessage";

/** What replaces one placeholder: byte chunks (referenced, not copied) and their length in characters; a span boundary (`encodeSpans`) has none. */
interface Splice {
  chunks: readonly Uint8Array[];
  chars: number;
  boundary?: true;
}

/** The encoding in progress: the placeholders' token (made at the first splice), the splices met so far in document order, and the characters of those that were encoded before (`EncodedJson`). */
let encoding: Encoding | undefined;

interface Encoding {
  token: string | undefined;
  splices: Splice[];
  reused: number;
}

/** A length measure in progress (`serializedLength`): what the kept outputs add beyond the `""` each stands as. */
let measuring: { extra: number } | undefined;

/**
 * The placeholders' token: random, made once per process at the first splice, so no text a
 * body can hold contains it by chance. Once per process rather than per body because a
 * resumed history's first request encodes each of its runs on its own (wire-cache.ts). It
 * never leaves the process: every placeholder is replaced before a body is sent.
 */
let processToken: string | undefined;
const theToken = (): string => (processToken ??= `penguin-splice-${randomBytes(12).toString("hex")}-`);

function placeholder(current: Encoding, splice: Splice): string {
  current.token ??= theToken();
  current.splices.push(splice);
  return `${current.token}${current.splices.length - 1}`;
}

/** The length in UTF-16 units of the text UTF-8 `bytes` decode to, counted without decoding them. */
export function utf16LengthOf(bytes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}

/** The length of a kept output's JSON text in characters: its byte length when all ASCII, else counted off its bytes. */
function rawOutputChars(item: ToolCallOutputPayload, json: Uint8Array): number {
  return asciiRawOutputLength(item) ?? utf16LengthOf(json);
}

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
      measuring.extra += rawOutputChars(this.item, this.json) - 2;
      return "";
    }
    if (encoding === undefined) return this.item.output;
    return placeholder(encoding, { chunks: [this.json], chars: rawOutputChars(this.item, this.json) });
  }
}

/**
 * A JSON list already encoded (wire-cache.ts): its text as a few byte chunks and its length
 * in characters. Inside `encodeBodyChunks` its chunks go where it stands; inside
 * `serializedLength` it counts as `chars`; anywhere else it is the value its text parses to.
 */
export class EncodedJson {
  constructor(
    readonly chunks: readonly Uint8Array[],
    readonly chars: number,
  ) {}

  toJSON(): unknown {
    if (measuring !== undefined) {
      measuring.extra += this.chars - 2;
      return "";
    }
    if (encoding === undefined) return JSON.parse(Buffer.concat(this.chunks).toString("utf8")) as unknown;
    encoding.reused += this.chars;
    return placeholder(encoding, this);
  }
}

/** The value to put in a body for `item.output`: its kept JSON text where there is one, else the string. */
export function outputForWire(item: ToolCallOutputPayload): string | RawOutput {
  const json = rawOutputJsonOf(item);
  return json === undefined ? item.output : new RawOutput(item, json);
}

/**
 * JSON text as `encodeParts` gives it: the string itself, or byte chunks with each splice's bytes
 * in its placeholder's place; `reused` is the characters of it that `EncodedJson` values held.
 */
export type EncodedText = { text: string; chars: number; reused?: number } | { chunks: Uint8Array[]; chars: number; reused?: number };

/**
 * `stringify(value)` (JSON.stringify unless a protocol needs its own), with each `RawOutput`'s
 * and `EncodedJson`'s bytes in place of its placeholder, as chunks (the splices' own chunks
 * referenced, not copied), and its length in characters. The text itself when there is
 * nothing to splice.
 */
export function encodeParts(value: unknown, stringify: (value: unknown) => string = JSON.stringify): EncodedText {
  const current: Encoding = { token: undefined, splices: [], reused: 0 };
  const outer = encoding;
  encoding = current;
  let text: string;
  try {
    text = stringify(value);
  } finally {
    encoding = outer;
  }
  const token = current.token;
  if (token === undefined) return { text, chars: text.length };
  const chunks: Uint8Array[] = [];
  let chars = text.length;
  let at = 0;
  current.splices.forEach((splice, i) => {
    const mark = `"${token}${i}"`;
    const found = text.indexOf(mark, at);
    if (found < 0) throw new Error(`encodeBody: the placeholder of spliced value ${i} is missing from the body`);
    if (found > at) chunks.push(Buffer.from(text.slice(at, found), "utf8"));
    for (const c of splice.chunks) chunks.push(c);
    chars += splice.chars - mark.length;
    at = found + mark.length;
  });
  if (at < text.length) chunks.push(Buffer.from(text.slice(at), "utf8"));
  return { chunks, chars, reused: current.reused };
}

/** A mark between the elements of a list given to `encodeSpans`: where one span ends and the next begins. */
export const SPAN_BOUNDARY = {
  toJSON(): string {
    if (encoding === undefined) throw new Error("encodeSpans: a span boundary outside an encoding");
    return placeholder(encoding, { chunks: [], chars: 0, boundary: true });
  },
};

/** One span of `encodeSpans`: its text slices and spliced bytes in order, and its length in characters. */
export interface Span {
  parts: (string | Uint8Array)[];
  chars: number;
}

/**
 * The elements of `values` (a list that begins and ends with `SPAN_BOUNDARY`, with one between
 * spans) encoded in one `stringify` call, cut into the spans' texts without the commas around
 * them: as many spans as gaps between boundaries, an empty one where a gap holds no element.
 * One call for a whole history (a resume's first request) instead of one per run; each span's
 * text is referenced as slices of the one string, kept outputs' bytes as they are.
 */
export function encodeSpans(values: unknown[], stringify: (value: unknown) => string = JSON.stringify): Span[] {
  const current: Encoding = { token: undefined, splices: [], reused: 0 };
  const outer = encoding;
  encoding = current;
  let text: string;
  try {
    text = stringify(values);
  } finally {
    encoding = outer;
  }
  const token = current.token;
  if (token === undefined) throw new Error("encodeSpans: the list holds no span boundary");
  const spans: Span[] = [];
  let span: Span | undefined;
  let at = 0;
  current.splices.forEach((splice, i) => {
    const mark = `"${token}${i}"`;
    const found = text.indexOf(mark, at);
    if (found < 0) throw new Error(`encodeSpans: the placeholder of spliced value ${i} is missing`);
    if (span !== undefined && found > at) {
      span.parts.push(text.slice(at, found));
      span.chars += found - at;
    }
    if (splice.boundary === true) {
      if (span !== undefined) spans.push(withoutCommas(span));
      span = { parts: [], chars: 0 };
    } else if (span !== undefined) {
      for (const c of splice.chunks) span.parts.push(c);
      span.chars += splice.chars;
    }
    at = found + mark.length;
  });
  return spans;
}

/** A span as cut between two boundaries (`,e1,e2,` or `,`) without its comma on either side. */
function withoutCommas(span: Span): Span {
  if (span.chars <= 1) return { parts: [], chars: 0 };
  const parts = span.parts;
  // Elements are objects: the text around them is the list's own (a comma, a brace), never bytes spliced in.
  parts[0] = (parts[0] as string).slice(1);
  const last = parts.length - 1;
  parts[last] = (parts[last] as string).slice(0, -1);
  return { parts, chars: span.chars - 2 };
}

/**
 * `stringify(body)` with each `RawOutput`'s bytes in place of its placeholder: a string when
 * the body holds none, as before, else one buffer.
 */
export function encodeBody(body: unknown, stringify: (value: unknown) => string = JSON.stringify): string | Buffer {
  const encoded = encodeParts(body, stringify);
  return "text" in encoded ? encoded.text : Buffer.concat(encoded.chunks);
}

/**
 * `stringify(body)` as the chunks the transport writes one after another: an `EncodedJson`'s
 * chunks are not copied into one buffer, so a body's cost is its skeleton's.
 */
export function encodeBodyChunks(body: unknown, stringify: (value: unknown) => string = JSON.stringify): string | Uint8Array[] {
  const encoded = encodeParts(body, stringify);
  return "text" in encoded ? encoded.text : encoded.chunks;
}

/**
 * `stringify(value).length` (JSON.stringify unless a protocol needs its own) without decoding
 * or escaping kept outputs that are all ASCII: each counts as its kept JSON text's length.
 */
export function serializedLength(value: unknown, stringify: (value: unknown) => string = JSON.stringify): number {
  const current = { extra: 0 };
  const outer = measuring;
  measuring = current;
  try {
    return stringify(value).length + current.extra;
  } finally {
    measuring = outer;
  }
}
