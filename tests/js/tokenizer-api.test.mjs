// model.tokenizer (tokenizers/public-tokenizer.mjs) against transformers'
// own tokenizers (tests/tools/make_text_cases.py, in the sid chroot), on the
// committed tokenizers: WordPiece (bert-zh, hf-bert-mlm), byte-level BPE
// (gpt2, hf-qwen2), SentencePiece-style BPE with byte fallback (hf-llama, and
// the real stories260K's), Marian's: encode with and without special tokens,
// truncated (single texts and pairs, longest first), padded to a length (or
// refused without a pad token, as transformers refuses), the input ids,
// attention mask and token type ids (where the model takes them); decode with
// and without special tokens; countTokens. And run({ truncation }) runs the
// truncated ids; the refusals name the argument.
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { inThreadTokenizerHost } from '../../src/js/models/tokenizers/in-thread-host.mjs';
import { publicTokenizer } from '../../src/js/models/tokenizers/public-tokenizer.mjs';
import { TEXT_CASES, folderTokenizer, textCases } from './helpers/text-fixtures.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const MODEL_FOLDERS = ['bert-zh', 'hf-bert-mlm', 'gpt2', 'hf-qwen2', 'hf-llama', 'hf-marian'];

let engine;
const tokenizers = {};
const models = {};
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd', threads: 1 });
  for (const name of MODEL_FOLDERS) {
    models[name] = await engine.loadModel(`${MODELS}${name}`);
    tokenizers[name] = models[name].tokenizer;
  }
  // stories260K's tokenizer alone (its weights are not in the repository): a Llama's, no token types.
  const made = await folderTokenizer('stories260K', inThreadTokenizerHost);
  tokenizers.stories260K = publicTokenizer(made, {
    longest: 512,
    tokenTypes: false,
    specialTokens: made.specialTokens,
  });
});
afterAll(() => engine?.dispose());

// Texts @huggingface/tokenizers 0.2 (which encodes tokenizer.json's, run() the same) cuts otherwise than
// transformers: stories260K's leading "  " is ▁ ▁ ▁t there, ▁ ▁t in transformers 5 (kept as failing tests).
const KNOWN = { stories260K: ['  two  spaces\nand a newline '] };
const known = (name, text) => KNOWN[name]?.includes(text) ?? false;
// Rust's ByteFallback writes a U+FFFD for every byte of a run that is not UTF-8 as a whole,
// @huggingface/tokenizers only for the bytes that do not decode (a truncation can end inside a character).
const byteSoup = (text) => text.includes('\uFFFD');

// transformers' keyword arguments as encode's options.
const optionsOf = ({ add_special_tokens: addSpecialTokens, truncation, max_length: maxLength, padding }) => ({
  ...(addSpecialTokens !== undefined && { addSpecialTokens }),
  ...(truncation !== undefined && { truncation }),
  ...(maxLength !== undefined && { maxLength }),
  ...(padding !== undefined && { padding }),
});

test('the references are here', () => {
  expect(TEXT_CASES).toEqual(expect.arrayContaining([...MODEL_FOLDERS, 'stories260K']));
});

describe.each([...MODEL_FOLDERS, 'stories260K'])('%s', (name) => {
  const cases = textCases(name);
  const label = (c) =>
    `${JSON.stringify(c.textPair ? [c.text, c.textPair] : c.text).slice(0, 40)} ${JSON.stringify(c.options)}`;

  const encodes = (knownOnes) =>
    cases.encode.filter((c) => (known(name, c.text) && !c.error) === knownOnes).map((c) => [label(c), c]);
  const encodeCase = async (c) => {
    const tokenizer = tokenizers[name];
    const input = c.textPair ? [c.text, c.textPair] : c.text;
    const promise = tokenizer.encode(input, optionsOf(c.options));
    if (c.error) {
      await expect(promise).rejects.toThrow(TypeError);
      await expect(promise).rejects.toThrow(/^padding: .*no pad token/);
      return;
    }
    const out = await promise;
    expect(Array.from(out.inputIds)).toEqual(c.input_ids);
    expect(Array.from(out.attentionMask)).toEqual(c.attention_mask);
    if (c.token_type_ids) expect(Array.from(out.tokenTypeIds)).toEqual(c.token_type_ids);
    else expect(out.tokenTypeIds).toBeUndefined();
    expect(out.tokens).toHaveLength(c.input_ids.length);
  };
  test.each(encodes(false))('encode %s', (_, c) => encodeCase(c));
  if (encodes(true).length) test.failing.each(encodes(true))('encode %s (a known difference)', (_, c) => encodeCase(c));

  test('decode, with and without special tokens', async () => {
    for (const c of cases.decode.filter((d) => !byteSoup(d.text)))
      expect([
        c.ids,
        c.skipSpecialTokens,
        await tokenizers[name].decode(c.ids, { skipSpecialTokens: c.skipSpecialTokens }),
      ]).toEqual([c.ids, c.skipSpecialTokens, c.text]);
  });

  test('countTokens', async () => {
    for (const c of cases.countTokens.filter((t) => !known(name, t.text)))
      expect([c.text, await tokenizers[name].countTokens(c.text)]).toEqual([c.text, c.count]);
  });
});

test('specialTokens are model.specialTokens', () => {
  for (const name of MODEL_FOLDERS) expect(models[name].tokenizer.specialTokens).toBe(models[name].specialTokens);
  expect(models['bert-zh'].tokenizer.specialTokens.pad.token).toBe('[PAD]');
});

test('run({ truncation: true, maxLength }) runs the ids encode truncates to', async () => {
  const long = textCases('bert-zh').encode.find(
    (c) => c.options.max_length === 6 && !c.textPair && c.options.truncation,
  );
  for (const name of ['bert-zh', 'hf-llama', 'hf-marian']) {
    const model = models[name];
    const text = long.text.repeat(40);
    await expect(model.run(text)).rejects.toThrow(RangeError);
    const { inputIds } = await model.tokenizer.encode(text, { truncation: true });
    expect(inputIds.length).toBe(model.config.maxLength);
    const r = await model.run(text, { truncation: true, returnAttention: false });
    expect(Array.from(r.inputIds)).toEqual(Array.from(inputIds));
    const short = await model.run(text, { truncation: true, maxLength: 6, returnAttention: false });
    expect(Array.from(short.inputIds)).toEqual(
      Array.from((await model.tokenizer.encode(text, { truncation: true, maxLength: 6 })).inputIds),
    );
  }
});

test('bad arguments name themselves, with what was expected and given', async () => {
  const tokenizer = tokenizers['bert-zh'];
  const model = models['bert-zh'];
  await expect(tokenizer.encode(5)).rejects.toThrow(/^input: expected a string or \[text, textPair\].*got number 5/);
  await expect(tokenizer.encode(['a'])).rejects.toThrow(TypeError);
  await expect(tokenizer.encode('a', { truncation: 'yes' })).rejects.toThrow(/^truncation: expected a boolean/);
  await expect(tokenizer.encode('a', { padding: 'left' })).rejects.toThrow(/^padding: expected false, true/);
  await expect(tokenizer.encode('a', { maxLength: 4 })).rejects.toThrow(/^maxLength: it bounds truncation/);
  await expect(tokenizer.encode('a', { truncation: true, maxLength: 0 })).rejects.toThrow(RangeError);
  await expect(tokenizer.encode('a', { truncation: true, maxLength: 1.5 })).rejects.toThrow(
    /^maxLength: expected an integer, got number 1.5/,
  );
  await expect(tokenizer.encode('a', { truncate: true })).rejects.toThrow(/truncate/);
  await expect(tokenizer.countTokens('a', { padding: 'max_length' })).rejects.toThrow(/padding/);
  await expect(tokenizer.decode([1e9])).rejects.toThrow(RangeError);
  await expect(model.run('a', { truncation: 1 })).rejects.toThrow(/^truncation: expected a boolean/);
  await expect(model.run({ inputIds: [2, 3] }, { truncation: true })).rejects.toThrow(/^truncation: .*inputIds/);
  await expect(models['hf-llama'].prefill('a', { truncation: true })).rejects.toThrow(/truncation/);
});

test('a maxLength too short for the special tokens is a RangeError, from the worker too', async () => {
  // bert-zh's tokenizer runs in Node's worker thread (the model's), stories260K's on this thread.
  await expect(tokenizers['bert-zh'].encode(['a', 'b'], { truncation: true, maxLength: 3 })).rejects.toThrow(
    /^maxLength: 3 tokens, fewer than the 4 this tokenizer needs \(its 3 special tokens/,
  );
  await expect(tokenizers['bert-zh'].encode(['a', 'b'], { truncation: true, maxLength: 3 })).rejects.toThrow(
    RangeError,
  );
  await expect(tokenizers.stories260K.encode('a b c', { truncation: true, maxLength: 1 })).rejects.toThrow(RangeError);
  expect(
    Array.from((await tokenizers['bert-zh'].encode('a', { truncation: true, maxLength: 3 })).inputIds),
  ).toHaveLength(3);
});

test('a disposed model’s tokenizer refuses, and starts no worker again', async () => {
  const model = await engine.loadModel(`${MODELS}gpt2`);
  expect(await model.tokenizer.countTokens('a snake')).toBeGreaterThan(0);
  model.dispose();
  await expect(model.tokenizer.encode('a snake')).rejects.toMatchObject({ code: 'Disposed' });
  await expect(model.tokenizer.decode([1, 2])).rejects.toMatchObject({ code: 'Disposed' });
});
