// The browser entry's feature probes, run in Node (whose V8 has final
// WebAssembly SIMD). Loading the engine itself needs a browser Worker.
import { jest } from '@jest/globals';
import { hasSimd, hasThreads, SIMD_PROBE } from '../../src/js/browser.mjs';

afterEach(() => jest.restoreAllMocks());

test('hasSimd() is true in Node 20', () => {
  expect(hasSimd()).toBe(true);
});

test('the probe is a valid module, and it is what hasSimd() validates', () => {
  expect(SIMD_PROBE).toBeInstanceOf(Uint8Array);
  expect(WebAssembly.validate(SIMD_PROBE)).toBe(true);
  const validate = jest.spyOn(WebAssembly, 'validate');
  hasSimd();
  expect(validate).toHaveBeenCalledWith(SIMD_PROBE);
});

test('the probe uses a SIMD instruction: replacing it by a non-SIMD one makes the module invalid', () => {
  // The body ends with the prefixed opcodes 0xfd 0x0f (i8x16.splat) 0xfd 0x62
  // (i8x16.popcnt) and `end`: the function returns a v128.
  const bytes = Array.from(SIMD_PROBE);
  expect(bytes.slice(-5)).toEqual([0xfd, 0x0f, 0xfd, 0x62, 0x0b]);
  const withoutPopcnt = SIMD_PROBE.slice();
  withoutPopcnt.set([0x01, 0x01], SIMD_PROBE.length - 3); // nop nop: still v128 on the stack, so valid
  expect(WebAssembly.validate(withoutPopcnt)).toBe(true);
  const withoutSimd = SIMD_PROBE.slice();
  withoutSimd.set([0x01, 0x01, 0x01, 0x01], SIMD_PROBE.length - 5); // i32 left where a v128 is due
  expect(WebAssembly.validate(withoutSimd)).toBe(false);
});

test('corrupted copies of the probe are rejected by WebAssembly.validate', () => {
  const badType = SIMD_PROBE.slice();
  const v128 = SIMD_PROBE.indexOf(0x7b); // the function type's result: v128
  expect(v128).toBeGreaterThan(8);
  badType[v128] = 0x7a; // not a value type
  expect(WebAssembly.validate(badType)).toBe(false);
  const badMagic = SIMD_PROBE.slice();
  badMagic[1] = 0x62;
  expect(WebAssembly.validate(badMagic)).toBe(false);
  expect(WebAssembly.validate(SIMD_PROBE.slice(0, -1))).toBe(false); // truncated
  expect(WebAssembly.validate(SIMD_PROBE)).toBe(true); // the original is untouched
});

test('hasSimd() is false when the probe does not validate or validation throws', () => {
  jest.spyOn(WebAssembly, 'validate').mockReturnValueOnce(false);
  expect(hasSimd()).toBe(false);
  jest.spyOn(WebAssembly, 'validate').mockImplementationOnce(() => {
    throw new Error('no WebAssembly here');
  });
  expect(hasSimd()).toBe(false);
});

test('hasThreads() needs a cross-origin-isolated context with SharedArrayBuffer', () => {
  expect(globalThis.crossOriginIsolated).toBeUndefined(); // Node has no such notion
  expect(hasThreads()).toBe(false);
  globalThis.crossOriginIsolated = true;
  try {
    expect(hasThreads()).toBe(typeof SharedArrayBuffer === 'function');
    expect(hasThreads()).toBe(true);
  } finally {
    delete globalThis.crossOriginIsolated;
  }
});
