// ggml's blocks dequantized (src/js/models/formats/gguf/dequantize.mjs)
// against gguf-py's own numpy dequantizer (gguf.quants.dequantize) on random
// blocks of every type the loader reads (tests/fixtures/gguf/dequantize.json,
// tests/tools/make_gguf_fixtures.py): the float32 values bit for bit, as
// ggml's C rounds them.
import { readFileSync } from 'node:fs';
import { dequantize, DEQUANTIZED_TYPES } from '../../src/js/models/formats/gguf/dequantize.mjs';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/gguf/dequantize.json', import.meta.url), 'utf8'));
const bytesOf = (b64) => new Uint8Array(Buffer.from(b64, 'base64'));

test('the fixture covers every type dequantize() reads', () => {
  expect(
    Object.keys(fixture)
      .filter((k) => k !== 'source')
      .sort(),
  ).toEqual([...DEQUANTIZED_TYPES].sort());
});

test.each(DEQUANTIZED_TYPES)("%s: the values are gguf-py's, bit for bit", (type) => {
  const { elements, raw, values } = fixture[type];
  const got = dequantize(type, bytesOf(raw), elements);
  const want = new Uint32Array(bytesOf(values).buffer);
  const bits = new Uint32Array(got.buffer);
  let differ = 0;
  for (let i = 0; i < elements; i++) if (bits[i] !== want[i]) differ++;
  expect(differ).toBe(0);
  expect(elements).toBeGreaterThanOrEqual(64);
});

test("a byte count that is not the blocks' is refused", () => {
  expect(() => dequantize('Q8_0', new Uint8Array(33), 32)).toThrow(/32 Q8_0 elements take 34 bytes, got 33/);
  expect(() => dequantize('Q4_K', new Uint8Array(144), 32)).toThrow(/not whole Q4_K blocks of 256/);
  expect(() => dequantize('IQ2_XXS', new Uint8Array(66), 256)).toThrow(/IQ2_XXS is not read/);
});
