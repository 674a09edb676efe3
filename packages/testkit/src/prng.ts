/**
 * A small seeded PRNG (the mulberry32 construction), so random splits and corruptions are the
 * same on every run and a failing seed can be replayed. Not for anything but tests.
 */

/** Returns a function yielding floats in [0, 1), fully determined by `seed`. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return function next(): number {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max) drawn from `random`. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min));
}

/**
 * `count` distinct integers in [min, max), sorted ascending. Asks for at most as many as the
 * range holds, so it always terminates.
 */
export function distinctSorted(random: () => number, count: number, min: number, max: number): number[] {
  const wanted = Math.max(0, Math.min(count, max - min));
  const picked = new Set<number>();
  while (picked.size < wanted) picked.add(randomInt(random, min, max));
  return [...picked].sort((a, b) => a - b);
}
