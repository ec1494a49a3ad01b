// Each step's text delta (generation/text-stream.mjs) against what
// transformers' own tokenizers decode (tests/tools/make_text_cases.py, in the
// sid chroot): for fixed id sequences of every decoder's tokenizer and of
// Marian's — words, spaces, newlines, the byte-fallback and byte-level pieces
// of 毒蛇, special tokens inside — the deltas joined are, after every id, the
// decode of the whole prefix minus the decoded prompt (as soon as it does not
// end in an incomplete character), and at the end the text the pipeline gives;
// and each step decodes a window of a few ids, not the whole output.
import { inThreadTokenizerHost } from '../../src/js/models/tokenizers/in-thread-host.mjs';
import { textStream } from '../../src/js/models/generation/text-stream.mjs';
import { TEXT_CASES, folderTokenizer, textCases } from './helpers/text-fixtures.mjs';

const STREAMED = TEXT_CASES.filter((name) => textCases(name).stream.length);
const tokenizers = {};
beforeAll(async () => {
  for (const name of STREAMED) tokenizers[name] = await folderTokenizer(name, inThreadTokenizerHost);
});

test('the references are here', () => {
  expect(STREAMED).toEqual(['gpt2', 'hf-llama', 'hf-marian', 'hf-qwen2', 'stories260K']);
});

describe.each(STREAMED)('%s', (name) => {
  test.each(textCases(name).stream.map((c) => [c.name, c]))('%s: the deltas are transformers’ text', async (_, c) => {
    const tokenizer = tokenizers[name];
    const decoded = [];
    const decode = (ids) => {
      decoded.push(ids.length);
      return tokenizer.decode(ids, { skipSpecialTokens: true });
    };
    expect(await decode(c.promptIds)).toBe(c.promptText);
    const stream = textStream(decode, c.promptIds);
    const ids = [...c.promptIds];
    let text = '';
    for (let k = 0; k < c.newIds.length; k++) {
      ids.push(c.newIds[k]);
      decoded.length = 0;
      text += await stream.push(Int32Array.from(ids), k === c.newIds.length - 1);
      // Never the whole output: the window holds the ids since the last stable text and a few before.
      expect(Math.max(...decoded)).toBeLessThanOrEqual(12);
      const whole = c.prefixTexts[k].slice(c.promptText.length);
      expect(c.text.startsWith(text)).toBe(true);
      // Rust's tokenizers writes a U+FFFD for every byte of a byte run that is not UTF-8 as a whole (the
      // characters already whole in it too), @huggingface/tokenizers for the bytes that are not: the text
      // before such a run is the same.
      if (!whole.includes('\uFFFD')) expect([k, text]).toEqual([k, whole]);
      else expect(text.startsWith(whole.slice(0, whole.indexOf('\uFFFD')))).toBe(true);
    }
    expect(text).toBe(c.text);
  });

  test('TextStreamer never printed more than the deltas had given', async () => {
    const tokenizer = tokenizers[name];
    const decode = (ids) => tokenizer.decode(ids, { skipSpecialTokens: true });
    for (const c of textCases(name).stream) {
      const stream = textStream(decode, c.promptIds);
      const ids = [...c.promptIds];
      let text = '';
      let printed = '';
      for (let k = 0; k < c.newIds.length; k++) {
        ids.push(c.newIds[k]);
        text += await stream.push(ids, k === c.newIds.length - 1);
        printed += c.streamer[k];
        // TextStreamer decodes the new ids without the prompt, and again from the word after a newline, so
        // Llama's decoder strips the first one's space ("The cat" + "and a", the lost space):
        // compare up to its first newline, with that space or without.
        const upTo = printed.indexOf('\n');
        const before = upTo < 0 ? printed : printed.slice(0, upTo + 1);
        expect(text.startsWith(before) || text.replace(/^ /, '').startsWith(before)).toBe(true);
      }
    }
  });
});
