// The relaxed-SIMD builds and the choice of them. Where this Node runs relaxed
// SIMD (Node ≥ 22, or scripts/test.sh's run with --experimental-wasm-relaxed-simd)
// they are the default, compute every fixture within the fixtures' tolerance
// of the float64 references, and differ from the SIMD128 builds only by the
// GEMM's fused rounding (measured here); elsewhere (Node 20 as it starts) the
// probe fails, the default stays threaded-simd, and asking for them is refused.
import { readFileSync } from 'node:fs';
import { createAttention } from '../../src/js/node.mjs';
import { variantFiles } from '../../src/js/files.mjs';
import { hasRelaxedSimd, RELAXED_SIMD_PROBE, SIMD_PROBE } from '../../src/js/variants.mjs';
import { fixtureNames, loadFixture } from './helpers/fixtures.mjs';
import { compareClose, expectClose } from './helpers/compare.mjs';

const relaxed = hasRelaxedSimd();
const dist = (fileName) => new URL(`../../dist/${fileName}`, import.meta.url);
const RELAXED_MADD = [0xfd, 0x85, 0x02]; // f32x4.relaxed_madd, the final opcode (as in the probe)
const holds = (bytes, sequence) => bytes.some((_, i) => sequence.every((b, k) => bytes[i + k] === b));

test('the probe is a valid module exactly where relaxed SIMD runs, and SIMD128 validates everywhere here', () => {
  expect(WebAssembly.validate(SIMD_PROBE)).toBe(true);
  expect(WebAssembly.validate(RELAXED_SIMD_PROBE)).toBe(relaxed);
  expect(holds(RELAXED_SIMD_PROBE, RELAXED_MADD)).toBe(true);
});

test('every relaxed build holds f32x4.relaxed_madd and validates as this host does; the SIMD128 builds validate', () => {
  for (const family of ['inference', 'train', 'model'])
    for (const [variant, want] of [
      ['threaded-relaxed-simd', true],
      ['relaxed-simd', true],
      ['threaded-simd', false],
      ['simd', false],
    ]) {
      const bytes = new Uint8Array(readFileSync(dist(variantFiles(variant, family).wasm)));
      // The byte sequence alone could sit in a data segment; the relaxed builds must hold it and fail to
      // validate where the probe does, the others must validate here.
      expect([variant, family, WebAssembly.validate(bytes)]).toEqual([variant, family, want ? relaxed : true]);
      if (!want) continue;
      expect(holds(bytes, RELAXED_MADD)).toBe(true);
    }
});

if (!relaxed) {
  test('without relaxed SIMD: the default stays threaded-simd, and the relaxed builds are refused by name', async () => {
    const engine = await createAttention({ threads: 2 });
    expect([engine.variant, engine.threads]).toEqual(['threaded-simd', 2]);
    engine.dispose();
    const single = await createAttention({ threads: 1 });
    expect(single.variant).toBe('simd');
    single.dispose();
    for (const variant of ['relaxed-simd', 'threaded-relaxed-simd'])
      await expect(createAttention({ variant })).rejects.toThrow(
        new RegExp(`^variant: "${variant}" needs WebAssembly relaxed SIMD, which this Node v[0-9.]+ lacks`),
      );
  });
} else {
  describe('with relaxed SIMD', () => {
    let engines;
    beforeAll(async () => {
      engines = {
        default: await createAttention({ threads: 2 }),
        single: await createAttention({ threads: 1 }),
        simd: await createAttention({ variant: 'simd' }),
      };
    });
    afterAll(() => Object.values(engines ?? {}).forEach((e) => e.dispose()));

    test('they are the default, threaded and not', () => {
      expect([engines.default.variant, engines.default.threads]).toEqual(['threaded-relaxed-simd', 2]);
      expect(engines.single.variant).toBe('relaxed-simd');
    });

    test('another build’s bytes are refused', async () => {
      // The same Emscripten made both: the glues take each other's bytes, whose kernels then tell them apart.
      await expect(
        createAttention({ variant: 'relaxed-simd', wasmBinary: readFileSync(dist('mha-simd.wasm')) }),
      ).rejects.toThrow(
        new TypeError(
          'wasmBinary: expected the bytes of mha-relaxed-simd.wasm, got those of a build with SIMD kernels (mha-simd.wasm?)',
        ),
      );
      await expect(
        createAttention({ variant: 'simd', wasmBinary: readFileSync(dist('mha-relaxed-simd.wasm')) }),
      ).rejects.toThrow(
        new TypeError(
          'wasmBinary: expected the bytes of mha-simd.wasm, got those of a build with relaxed-SIMD kernels (mha-relaxed-simd.wasm?)',
        ),
      );
    });

    // FMA rounds a·b + c once where SIMD128 rounds twice. How far that moves a result, in units of
    // the fixture's own tolerance (|Δ| / (abs + rel·|want|)), against the float64 reference and against
    // the simd build: it must stay within the tolerance, and it must move something (else the GEMM
    // did not fuse: V8 fuses relaxed_madd on processors with FMA, which every x86-64 machine here has).
    test('every fixture within tolerance of the float64 reference; the fused rounding measured', async () => {
      let worstRef = { ratio: 0 };
      let worstSimd = 0;
      let differing = 0;
      let total = 0;
      for (const name of fixtureNames()) {
        const { args, want, tolerance } = loadFixture(name);
        const r = await engines.single.multiHeadAttention({ ...args, returnAttention: true });
        const s = await engines.simd.multiHeadAttention({ ...args, returnAttention: true });
        expectClose(r.output, want.output, tolerance, `${name} output`);
        expectClose(r.attention, want.attention, tolerance, `${name} attention`);
        expect(compareClose(s.output, want.output, tolerance)).toBeNull();
        for (let i = 0; i < want.output.length; i++) {
          const allowed = tolerance.abs + tolerance.rel * Math.abs(want.output[i]);
          const ratio = Math.abs(r.output[i] - want.output[i]) / allowed;
          if (ratio > worstRef.ratio) worstRef = { ratio, name };
          worstSimd = Math.max(worstSimd, Math.abs(r.output[i] - s.output[i]) / allowed);
          differing += r.output[i] !== s.output[i];
          total++;
        }
      }
      expect(worstRef.ratio).toBeLessThanOrEqual(1);
      expect(differing).toBeGreaterThan(0);
      console.log(
        `relaxed-simd vs float64: worst ${worstRef.ratio.toFixed(3)} of the tolerance (${worstRef.name}); ` +
          `vs simd: worst ${worstSimd.toFixed(3)} of it, ${differing} of ${total} output elements differ`,
      );
    });
  });
}
