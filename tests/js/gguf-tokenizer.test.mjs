// The tokenizer a GGUF file's metadata makes (src/js/models/formats/gguf/
// tokenizer.mjs: tokenizer.json as transformers' GGUF conversion builds it),
// run by the loader's own tokenizer path (createTokenizer, checked as any
// tokenizer.json), against transformers' AutoTokenizer.from_pretrained(…,
// gguf_file=…) on the same files (tests/fixtures/gguf/tokenizer-reference.json,
// tests/tools/make_gguf_fixtures.py): the ids of every text (the sentence,
// Chinese and English prose, emoji, digits, spaces, chat markers) exactly,
// its decoded text, and its special tokens' roles.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openGguf } from '../../src/js/models/formats/gguf/checkpoint.mjs';
import { fileAt } from '../../src/js/models/sources/folder.mjs';
import { inThreadTokenizerHost } from '../../src/js/models/tokenizers/in-thread-host.mjs';
import { createTokenizer } from '../../src/js/models/tokenizers/tokenizer.mjs';

const DIR = fileURLToPath(new URL('../fixtures/gguf/', import.meta.url));
const ref = JSON.parse(readFileSync(DIR + 'tokenizer-reference.json', 'utf8'));
const open = async (name) => {
  const bytes = readFileSync(DIR + name);
  return openGguf(fileAt(DIR + name, name, bytes.length));
};

describe.each(Object.keys(ref.files))('%s', (name) => {
  let tokenizer;
  beforeAll(async () => {
    const checkpoint = await open(name);
    tokenizer = await createTokenizer(await checkpoint.tokenizerFiles(), inThreadTokenizerHost, {
      vocabSize: checkpoint.json.vocab_size,
    });
  });
  afterAll(() => tokenizer?.dispose());

  test.each(ref.texts.map((text, i) => [i, text]))("text %d: transformers' ids and text", async (i, text) => {
    const want = ref.files[name].cases[i];
    const { ids } = await tokenizer.encode(text);
    expect(Array.from(ids)).toEqual(want.ids);
    expect(await tokenizer.decode(ids, { skipSpecialTokens: false })).toBe(want.decoded);
  });

  test("the special tokens' roles are transformers'", () => {
    const roles = {};
    for (const role of ['bos', 'eos', 'unk', 'pad'])
      if (tokenizer.specialTokens[role]) roles[`${role}_token`] = tokenizer.specialTokens[role].token;
    expect(roles).toEqual(ref.files[name].special);
  });
});

test("a file whose tokenizer is not built yet (llama's SentencePiece) loads without one", async () => {
  expect(await (await open('llama-f32.gguf')).tokenizerFiles()).toEqual({});
});
