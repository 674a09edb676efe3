// SecretRedactor: whatever the chunking, the released text equals the whole text with every
// vault value replaced, and no value ever appears in a released piece.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SecretRedactor } from "../../src/environment/redact.js";

describe("SecretRedactor", () => {
  const vault = { API_TOKEN: "tok-9f8e7d6c", SHORT: "ab", NESTED: "tok-9f8e7d6c-extra" };

  it("replaces values, longest first, and ignores values under 4 characters", () => {
    const r = new SecretRedactor(vault);
    expect(r.redact("a tok-9f8e7d6c-extra b tok-9f8e7d6c ab")).toBe("a [vault:NESTED] b [vault:API_TOKEN] ab");
  });

  it("gives the same result for any chunking (property)", () => {
    const piece = fc.oneof(fc.constantFrom("tok-9f8e7d6c", "tok-9f8e7d6c-extra", "tok-", "[vault:", "]"), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 10 }), (parts, cuts) => {
        const text = parts.join("");
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let last = 0;
        for (const p of points) {
          chunks.push(text.slice(last, p));
          last = p;
        }
        chunks.push(text.slice(last));
        const r = new SecretRedactor(vault);
        const released = chunks.map((c) => r.push(c));
        released.push(r.flush());
        expect(released.join("")).toBe(new SecretRedactor(vault).redact(text));
        for (const piece of released) expect(piece).not.toContain("tok-9f8e7d6c");
      }),
      { numRuns: 500 },
    );
  });
});
