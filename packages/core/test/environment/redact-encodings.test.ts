// SecretRedactor and a value's common encodings: for random secrets of 8 characters or more,
// each encoding (reversed, hex lower/upper, URL-encoded, base64 standard/URL-safe with and
// without padding, and a secret inside a longer base64 stream at each of the 3 alignments)
// placed in random output is redacted, whole or streamed in chunks; ordinary text that holds
// none of them is unchanged.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SecretRedactor } from "../../src/environment/redact.js";
import { encodedForms } from "../../src/environment/secret-encodings.js";

const ENCODINGS: Record<string, (s: string) => string> = {
  reversed: (s) => [...s].reverse().join(""),
  hex: (s) => Buffer.from(s).toString("hex"),
  HEX: (s) => Buffer.from(s).toString("hex").toUpperCase(),
  url: (s) => encodeURIComponent(s),
  base64: (s) => Buffer.from(s).toString("base64"),
  base64NoPad: (s) => Buffer.from(s).toString("base64").replace(/=+$/, ""),
  base64url: (s) => Buffer.from(s).toString("base64url"),
  base64urlPadded: (s) => Buffer.from(s).toString("base64").replace(/\+/g, "-").replace(/\//g, "_"),
};

const secret = fc.oneof(fc.string({ minLength: 8, maxLength: 40 }), fc.string({ minLength: 8, maxLength: 24, unit: "grapheme" }), fc.uint8Array({ minLength: 8, maxLength: 30 }).map((b) => Buffer.from(b).toString("latin1")));
const noise = fc.string({ maxLength: 30 });

function streamed(r: SecretRedactor, text: string, cuts: number[]): string {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let out = "";
  let last = 0;
  for (const p of points) {
    out += r.push(text.slice(last, p));
    last = p;
  }
  return out + r.push(text.slice(last)) + r.flush();
}

/** The bytes of each run of base64 characters, decoded on its own. */
function decodedRuns(text: string): Buffer[] {
  return (text.match(/[A-Za-z0-9+/=_-]+/g) ?? []).map((run) => Buffer.from(run.replace(/-/g, "+").replace(/_/g, "/"), "base64"));
}

describe("SecretRedactor: a vault value's encodings", () => {
  it("redacts each encoding of a known value", () => {
    const r = new SecretRedactor({ TOKEN: "s3cr3t/v+lue?&=ü" });
    for (const [name, encode] of Object.entries(ENCODINGS)) expect(r.redact(`a ${encode("s3cr3t/v+lue?&=ü")} b`), name).toBe("a [vault:TOKEN] b");
  });

  it("redacts every encoding of a random secret in random output, whole and in chunks (property)", () => {
    fc.assert(
      fc.property(secret, noise, noise, fc.constantFrom(...Object.keys(ENCODINGS)), fc.array(fc.nat(), { maxLength: 8 }), (value, before, after, name, cuts) => {
        const encoded = ENCODINGS[name]!(value);
        const text = `${before}${encoded}${after}`;
        const whole = new SecretRedactor({ KEY: value }).redact(text);
        expect(whole).not.toContain(encoded);
        expect(whole).toContain("[vault:KEY]");
        expect(streamed(new SecretRedactor({ KEY: value }), text, cuts)).toBe(whole);
      }),
      { numRuns: 1500 },
    );
  });

  it("redacts a secret inside a longer base64 stream at each of the 3 alignments (property)", () => {
    fc.assert(
      fc.property(secret, fc.uint8Array({ maxLength: 20 }), fc.uint8Array({ maxLength: 20 }), fc.boolean(), (value, before, after, urlSafe) => {
        const bytes = Buffer.concat([Buffer.from(before), Buffer.from(value), Buffer.from(after)]);
        const stream = urlSafe ? bytes.toString("base64url") : bytes.toString("base64");
        const redacted = new SecretRedactor({ KEY: value }).redact(stream);
        expect(redacted).toContain("[vault:KEY]");
        for (const run of decodedRuns(redacted)) expect(run.includes(Buffer.from(value))).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it("leaves ordinary text holding no form of the value unchanged (property)", () => {
    const words = fc.array(fc.constantFrom("the", "build", "passed", "in", "3.2s", "error:", "file.ts", "\n", " ", "==", "0x1f", "%20", "QUJD"), { maxLength: 40 }).map((w) => w.join(" "));
    fc.assert(
      fc.property(secret, words, (value, text) => {
        fc.pre(![value, ...encodedForms(value)].some((form) => text.includes(form)));
        expect(new SecretRedactor({ KEY: value }).redact(text)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it("a value under 8 characters is redacted as itself only", () => {
    const r = new SecretRedactor({ PIN: "abc123" });
    expect(r.redact("abc123 321cba YWJjMTIz")).toBe("[vault:PIN] 321cba YWJjMTIz");
  });
});
