// Sampling's randomness: a seeded generator of this package (reproducible for
// a seed in Node and browsers; not torch's numbers) and the draw of a token
// from processed scores.
import { softmax } from './logits-processors.mjs';

/**
 * A seeded generator of numbers in [0, 1) (sfc32 over a 32-bit seed spread
 * by splitmix32): the same seed gives the same samples in Node and browsers.
 */
export function seededRandom(seed) {
  let x = seed >>> 0;
  const mix = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let [a, b, c, d] = [mix(), mix(), mix(), mix()];
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

// A token drawn from softmax(scores) by a number of `random()`.
export function sample(scores, random) {
  const probs = softmax(Array.from(scores));
  let u = random();
  for (let v = 0; v < probs.length; v++) {
    u -= probs[v];
    if (u < 0 && probs[v] > 0) return v;
  }
  let last = probs.length - 1;
  while (last > 0 && probs[last] === 0) last--;
  return last;
}
