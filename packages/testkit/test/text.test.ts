// Small pure pieces: delta splitting that never cuts a surrogate pair, the seeded PRNG.
import { describe, expect, it } from "vitest";
import { seededRandom, splitText } from "../src/index.js";

describe("splitText", () => {
  it("cuts into pieces of the chunk size and keeps every character", () => {
    expect(splitText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(splitText("", 4)).toEqual([]);
  });

  it("never splits a surrogate pair", () => {
    const text = "ab🐧cd🐧🐧e";
    for (let size = 1; size <= 6; size++) {
      const pieces = splitText(text, size);
      expect(pieces.join("")).toBe(text);
      for (const piece of pieces) expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(piece)).toBe(false);
    }
  });

  it("rejects a chunk size that cannot make progress", () => {
    expect(() => splitText("abc", 0)).toThrow(/chunkSize/);
  });
});

describe("seededRandom", () => {
  it("repeats for a seed and differs between seeds", () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(draw(3).every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
