// Loads the reference fixtures of tests/fixtures (format: tests/fixtures/README.md).
// Inputs become exactly the float32 values the reference used (JSON.parse to
// double, then Float32Array rounds); keyPaddingMask becomes a Uint8Array; null
// ("no bias", "no mask") becomes undefined. The expected results stay float64.
import { readFileSync, readdirSync } from 'node:fs';

export const FIXTURES_DIR = new URL('../../fixtures/', import.meta.url);

const FLOAT_INPUTS = ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];

/** Fixture names (file names without .json), sorted. */
export function fixtureNames() {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

const CALL_FIELDS = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV', 'causal'];

/**
 * Returns { name, raw, args, want: { output, attention }, tolerance }.
 * `args` holds the call's arguments only (sizes, flags, inputs and masks
 * converted); the descriptive fields and expected results stay in `raw`.
 */
export function loadFixture(name) {
  const raw = JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES_DIR), 'utf8'));
  const args = Object.fromEntries(CALL_FIELDS.map((field) => [field, raw[field]]));
  for (const field of FLOAT_INPUTS) args[field] = raw[field] === null ? undefined : Float32Array.from(raw[field]);
  args.keyPaddingMask = raw.keyPaddingMask === null ? undefined : Uint8Array.from(raw.keyPaddingMask);
  return {
    name,
    raw,
    args,
    want: { output: Float64Array.from(raw.output), attention: Float64Array.from(raw.attention) },
    tolerance: raw.tolerance,
  };
}

/** The call arguments only: sizes, inputs and masks, without the descriptive fields. */
export function callArguments(fixture) {
  const a = fixture.args;
  const names = [
    'batch',
    'seqLenQ',
    'seqLenK',
    'dModel',
    'numHeads',
    'dK',
    'dV',
    'causal',
    'keyPaddingMask',
    ...FLOAT_INPUTS,
  ];
  return Object.fromEntries(names.map((n) => [n, a[n]]));
}
