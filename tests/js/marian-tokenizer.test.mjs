// MarianMT's tokenizer (src/js/models/tokenizers/marian.mjs, on the
// SentencePiece port sentencepiece.mjs) against transformers' MarianTokenizer:
// the fixture folder's reference.json (tests/tools/make_marian_fixtures.py)
// and tokenizer-cases.json (tests/tools/make_marian_tokenizer_cases.py: NFKC,
// whitespace, unknown characters, emoji, the empty text, >>lang<< codes,
// special tokens in the text, decoding with and without special tokens, with
// separate vocabularies), directly and through createTokenizer's hosts (Node's
// worker thread, the calling thread); the SentencePiece port against
// sentencepiece itself (tests/fixtures/sentencepiece/, by
// tests/tools/make_sentencepiece_cases.py: near ties, user-defined pieces,
// byte fallback, whitespace options). Then hostile SentencePiece files: each
// is an Error naming the file, never a hang or an allocation without bound.
// No wasm build is needed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { filesToRead, textFilesDecided } from '../../src/js/models/checkpoint-files.mjs';
import { checkpointDownload } from '../../src/js/models/sources/hub.mjs';
import { createMarianTokenizer, MarianFiles } from '../../src/js/models/tokenizers/marian.mjs';
import { nodeTokenizerHost } from '../../src/js/models/tokenizers/node-host.mjs';
import {
  MAX_PIECES,
  PIECE_TYPES,
  SentencePiece,
  readSentencePieceModel,
} from '../../src/js/models/tokenizers/sentencepiece.mjs';
import { createTokenizer } from '../../src/js/models/tokenizers/tokenizer.mjs';
import { inThreadTokenizerHost } from '../../src/js/models/tokenizers/in-thread-host.mjs';

const FIXTURES = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const FOLDER = `${FIXTURES}hf-marian/`;
const read = (name) => readFileSync(`${FOLDER}${name}`);
const json = (name) => JSON.parse(read(name).toString('utf8'));
const FILES = Object.freeze({
  'source.spm': new Uint8Array(read('source.spm')),
  'target.spm': new Uint8Array(read('target.spm')),
  'vocab.json': read('vocab.json').toString('utf8'),
});
const CONFIG = json('tokenizer_config.json');
const REFERENCE = json('reference.json');
const CASES = json('tokenizer-cases.json');
const marian = createMarianTokenizer(FILES, CONFIG);
const separate = createMarianTokenizer(
  { ...FILES, 'target_vocab.json': FILES['vocab.json'] },
  { ...CONFIG, separate_vocabs: true },
);
// What the loader hands createTokenizer for this folder (load.mjs: texts, and the .spm files as bytes).
const loaderFiles = () => ({ ...FILES, 'tokenizer_config.json': read('tokenizer_config.json').toString('utf8') });
const label = (text) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

describe('encoding, as MarianTokenizer', () => {
  test.each(REFERENCE.tokenizer.map((c) => [c.name, c]))('reference.json: %s', (_, c) => {
    const { ids } = marian.encode(c.text);
    expect(ids).toEqual(c.inputIds);
    expect(marian.pieces(ids)).toEqual(c.tokens); // convert_ids_to_tokens
    expect(marian.encode(c.text, undefined, { addSpecialTokens: false }).tokens).toEqual(c.pieces); // tokenize
  });

  test.each(REFERENCE.targetTokenizer.map((c) => [c.name, c]))('reference.json, a target text: %s', (_, c) => {
    expect(marian.encode(c.text, undefined, { target: true }).ids).toEqual(c.inputIds);
  });

  test.each(CASES.tokenizer.map((c) => [label(c.text), c]))('tokenizer-cases.json: %s', (_, c) => {
    const encoding = marian.encode(c.text);
    expect(encoding.ids).toEqual(c.inputIds);
    expect(encoding.typeIds).toBeNull(); // Marian's model inputs have no token types
    expect(marian.encode(c.text, undefined, { addSpecialTokens: false }).tokens).toEqual(c.tokens);
    expect(marian.pieces(encoding.ids)).toEqual(c.idTokens);
  });

  test('the references are transformers 5 and sentencepiece 0.2', () => {
    expect(CASES.transformers).toMatch(/^5\./);
    expect(CASES.sentencepiece).toMatch(/^0\.2\./);
    expect(CASES.tokenizer.length).toBeGreaterThan(30);
  });
});

describe('decoding, as MarianTokenizer', () => {
  const name = (d) => `${JSON.stringify(d.ids).slice(0, 50)} skip ${d.skipSpecialTokens}`;
  test.each(REFERENCE.decode.map((d) => [`${d.name}, skip ${d.skipSpecialTokens}`, d]))(
    'reference.json: %s',
    (_, d) => {
      expect(marian.decode(d.ids, { skipSpecialTokens: d.skipSpecialTokens })).toBe(d.text);
    },
  );

  test.each(CASES.decode.map((d) => [name(d), d]))('tokenizer-cases.json: %s', (_, d) => {
    expect(marian.decode(d.ids, { skipSpecialTokens: d.skipSpecialTokens })).toBe(d.text);
  });

  test.each(CASES.separateVocabs.decode.map((d) => [name(d), d]))('separate_vocabs (target.spm): %s', (_, d) => {
    expect(separate.decode(d.ids, { skipSpecialTokens: d.skipSpecialTokens })).toBe(d.text);
  });

  test('the cases tell the two decoders apart (transformers decodes with source.spm unless separate_vocabs)', () => {
    const differ = CASES.decode.filter((d, i) => d.text !== CASES.separateVocabs.decode[i].text);
    expect(differ.length).toBeGreaterThan(0);
  });

  test('an id outside the vocabulary is a RangeError naming the argument', () => {
    expect(() => marian.decode([0, 5, 100000])).toThrow(RangeError);
    expect(() => marian.decode([0, 5, 100000])).toThrow(/^ids\[2\]: expected a token id of this tokenizer \(0 to \d+/);
    expect(() => marian.decode([-1])).toThrow(/^ids\[0\]/);
  });
});

describe('createTokenizer: a folder with source.spm and no tokenizer.json is Marian', () => {
  test.each([
    ['the worker thread (Node)', nodeTokenizerHost],
    ['the calling thread', inThreadTokenizerHost],
  ])(
    'through %s: the same ids and texts as transformers',
    async (_, host) => {
      const tokenizer = await createTokenizer(loaderFiles(), host);
      try {
        expect(tokenizer.file).toBe('source.spm');
        const { eos, unk, pad } = REFERENCE.specialTokens;
        expect(tokenizer.specialTokens).toEqual([
          { id: eos, token: '</s>' },
          { id: unk, token: '<unk>' },
          { id: pad, token: '<pad>' },
        ]);
        const encodings = await Promise.all(CASES.tokenizer.map((c) => tokenizer.encode(c.text)));
        expect(encodings.map((e) => e.ids)).toEqual(CASES.tokenizer.map((c) => c.inputIds));
        expect(tokenizer.pieces(encodings[3].ids)).toEqual(CASES.tokenizer[3].idTokens);
        const pair = await tokenizer.encode(CASES.tokenizer[3].text, CASES.tokenizer[4].text);
        // build_inputs_with_special_tokens: both texts, then one </s>.
        expect(pair.ids).toEqual([...CASES.tokenizer[3].inputIds.slice(0, -1), ...CASES.tokenizer[4].inputIds]);
        const texts = await Promise.all(
          CASES.decode.map((d) => tokenizer.decode(Int32Array.from(d.ids), { skipSpecialTokens: d.skipSpecialTokens })),
        );
        expect(texts).toEqual(CASES.decode.map((d) => d.text));
        expect(await tokenizer.decode(REFERENCE.decode[0].ids)).toBe(
          REFERENCE.decode.find((d) => !d.skipSpecialTokens).text,
        );
      } finally {
        tokenizer.dispose();
      }
    },
    30_000,
  );

  test("decode's arguments are checked before the host sees them", async () => {
    const tokenizer = await createTokenizer(loaderFiles(), inThreadTokenizerHost);
    await expect(tokenizer.decode([0, 1e6])).rejects.toThrow(RangeError);
    await expect(tokenizer.decode([0, 1e6])).rejects.toThrow(/^ids\[1\]: expected a token id of this tokenizer/);
    await expect(tokenizer.decode('0 1')).rejects.toThrow(/^ids: expected an array of token ids/);
    await expect(tokenizer.decode([1.5])).rejects.toThrow(/^ids\[0\]: expected an integer token id/);
    await expect(tokenizer.decode([0], { skipSpecial: true })).rejects.toThrow(/unknown argument "skipSpecial"/);
    await expect(tokenizer.decode([0], { skipSpecialTokens: 1 })).rejects.toThrow(/^skipSpecialTokens: expected/);
  });

  test('a tokenizer.json tokenizer decodes through its host too (GPT-2: byte-level, lossless)', async () => {
    const folder = `${FIXTURES}gpt2/`;
    const files = { 'tokenizer.json': readFileSync(`${folder}tokenizer.json`, 'utf8') };
    for (const host of [nodeTokenizerHost, inThreadTokenizerHost]) {
      const tokenizer = await createTokenizer(files, host);
      try {
        const text = 'Will a venomous snake be poisoned? 用毒毒毒蛇';
        const { ids } = await tokenizer.encode(text);
        expect(await tokenizer.decode(ids, { skipSpecialTokens: true })).toBe(text);
        expect(await tokenizer.decode([])).toBe('');
        await expect(tokenizer.decode([ids[0], 1 << 30])).rejects.toThrow(/^ids\[1\]: expected a token id/);
      } finally {
        tokenizer.dispose();
      }
    }
  }, 30_000);

  test.each([
    ['target.spm', 'target.spm: missing'],
    ['vocab.json', 'vocab.json: missing'],
  ])('without %s: an Error naming it', async (name, message) => {
    const files = loaderFiles();
    delete files[name];
    await expect(createTokenizer(files, inThreadTokenizerHost)).rejects.toThrow(message);
  });

  test.each([
    ['an id that is not an integer', '{"</s>": 0, "<unk>": 1.5}', /^vocab\.json: the id of "<unk>" is 1\.5/],
    ['no <unk>', '{"</s>": 0, "a": 1}', /^vocab\.json: no <unk> token/],
    ['not JSON', '{"</s>": 0,', /^vocab\.json: not valid JSON/],
  ])('a vocab.json with %s: an Error naming it', async (_, text, message) => {
    await expect(createTokenizer({ ...loaderFiles(), 'vocab.json': text }, inThreadTokenizerHost)).rejects.toThrow(
      message,
    );
  });

  test('the loader reads and the Hub downloads what the tokenizer needs, and only that', () => {
    const has = (names) => (n) => names.includes(n);
    const marianRepo = [
      'config.json',
      'generation_config.json',
      'tokenizer_config.json',
      'source.spm',
      'target.spm',
      'vocab.json',
      'README.md',
    ];
    expect(filesToRead(has(marianRepo))).toEqual([
      'config.json',
      'generation_config.json',
      'tokenizer_config.json',
      'vocab.json',
      'source.spm',
      'target.spm',
    ]);
    // GPT-2's vocab.json is not read: its tokenizer.json has everything.
    const gpt2Repo = ['config.json', 'tokenizer.json', 'vocab.json', 'merges.txt'];
    expect(filesToRead(has(gpt2Repo))).toEqual(['config.json', 'tokenizer.json']);
    const sizes = new Map([...marianRepo, 'model.safetensors'].map((n) => [n, { size: 10 }]));
    expect(checkpointDownload(sizes).names).toEqual([...filesToRead(has(marianRepo)), 'model.safetensors']);
    // A cache knows it has a Marian checkpoint's files once each of them is known there or absent.
    const state = (known) => (n) => known[n];
    const base = { 'config.json': 'present', 'tokenizer_config.json': 'present', 'tokenizer.json': 'absent' };
    const marianState = { ...base, 'source.spm': 'present', 'target.spm': 'present', 'vocab.json': 'present' };
    expect(textFilesDecided(state(marianState))).toBe(false); // target_vocab.json not known
    expect(textFilesDecided(state({ ...marianState, 'target_vocab.json': 'absent' }))).toBe(true);
    expect(textFilesDecided(state({ ...base, 'vocab.txt': 'present' }))).toBe(false); // source.spm not known
    expect(textFilesDecided(state({ ...base, 'source.spm': 'absent', 'vocab.txt': 'present' }))).toBe(true);
  });
});

// ---- SentencePiece models against sentencepiece itself ----------------------------

describe('SentencePiece models, as sentencepiece encodes and decodes them', () => {
  const folder = `${FIXTURES}../sentencepiece/`;
  const { sentencepiece, models } = JSON.parse(readFileSync(`${folder}cases.json`, 'utf8'));
  const load = (name) =>
    new SentencePiece(readSentencePieceModel(new Uint8Array(readFileSync(`${folder}${name}.model`)), name), name);

  test('the references are sentencepiece 0.2.2', () => expect(sentencepiece).toBe('0.2.2'));

  test.each(Object.keys(models))('%s.model: pieces, normalized text and decoded text', (name) => {
    const sp = load(name);
    for (const c of models[name].encode) {
      expect([c.text, sp.encode(c.text)]).toEqual([c.text, c.pieces]);
      if (c.normalized !== undefined) expect([c.text, sp.normalize(c.text)]).toEqual([c.text, c.normalized]);
    }
    for (const d of models[name].decode) expect([d.pieces, sp.decodePieces(d.pieces)]).toEqual([d.pieces, d.text]);
  });
});

// ---- Hostile SentencePiece files ------------------------------------------------

// A protobuf writer of the few fields a ModelProto has.
const varint = (n) => {
  const out = [];
  do {
    const b = n % 128;
    n = Math.floor(n / 128);
    out.push(n ? b | 128 : b);
  } while (n);
  return out;
};
const field = (number, wire, payload) => [...varint(number * 8 + wire), ...payload];
const message = (number, bytes) => field(number, 2, [...varint(bytes.length), ...bytes]);
const utf8 = (s) => [...new TextEncoder().encode(s)];
const float = (x) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, x, true);
  return [...b];
};
const piece = (text, score, type = PIECE_TYPES.NORMAL) =>
  message(1, [...message(1, utf8(text)), ...field(2, 5, float(score)), ...field(3, 0, varint(type))]);
const PIECES = [
  piece('<unk>', 0, PIECE_TYPES.UNKNOWN),
  piece('</s>', 0, PIECE_TYPES.CONTROL),
  piece('\u2581a', -1),
  piece('a', -2),
  piece('\u2581', -3),
  piece('b', -2.5),
];
const modelBytes = ({ pieces = PIECES, trainer = [], normalizer = [] } = {}) =>
  Uint8Array.from([...pieces.flat(), ...message(2, trainer), ...message(3, normalizer)]);

// A precompiled_charsmap (a darts-clone double array) that maps "a" to `replacement`.
function charsmap(replacement, { offset = 1 } = {}) {
  const units = new Array(256).fill(0); // darts-clone allocates units 256 at a time: a byte never leads past them
  units[0] = 1 << 10; // the root: its children at 0 ^ 1
  units[1 ^ 0x61] = (offset << 10) | (1 << 8) | 0x61; // "a", with a leaf
  units[1 ^ 0x61 ^ 1] = 0x80000000 | 0; // the leaf: the string at 0
  const trie = new Uint8Array(units.length * 4);
  units.forEach((u, i) => new DataView(trie.buffer).setUint32(4 * i, u >>> 0, true));
  const header = new Uint8Array(4);
  new DataView(header.buffer).setUint32(0, trie.length, true);
  return [...header, ...trie, ...utf8(replacement), 0];
}

describe('hostile SentencePiece files are Errors naming the file', () => {
  const parse = (bytes) => readSentencePieceModel(bytes, 'source.spm');
  const good = FILES['source.spm'];

  test('the small model written here is one (and encodes)', () => {
    const sp = new SentencePiece(parse(modelBytes()), 'source.spm');
    expect(sp.size).toBe(6);
    expect(sp.encode('a  b')).toEqual(['\u2581a', '\u2581', 'b']);
    expect(sp.decodePieces(['\u2581a', '\u2581', 'b'])).toBe('a b');
  });

  test.each([
    ['empty', new Uint8Array(0), 'the file is empty'],
    ['cut inside its last field', good.subarray(0, good.length - 1), 'past the end of its message'],
    ['cut inside a piece', good.subarray(0, 40), 'source.spm: '],
    ['a varint of 11 bytes', Uint8Array.of(0x78, ...Array(10).fill(0xff), 0x01), 'a varint of more than 10 bytes'],
    ['a varint cut short', Uint8Array.of(0x0a, 0x80), 'ends inside a varint'],
    ['pieces with the wire type of a number', Uint8Array.of(0x08, 0x01), 'field 1 has wire type 0'],
    ['a score with the wire type of a length', modelBytes({ pieces: [message(1, [0x12, 0x00])] }), 'wire type 2'],
    ['a group', Uint8Array.of(0x0b, 0x0c), 'a group (wire type 3)'],
    ['wire type 7', Uint8Array.of(0x0f), 'wire type 7'],
    ['field number 0', Uint8Array.of(0x02, 0x00), 'field number 0'],
    [
      'a piece whose length claims past the end',
      Uint8Array.of(0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a),
      'claims 4294967295 bytes',
    ],
    ['a length of 2^63', Uint8Array.of(0x0a, ...Array(9).fill(0xff), 0x01), 'past the end of its message'],
    ['a BPE model', modelBytes({ trainer: field(3, 0, [2]) }), 'a BPE model (trainer_spec.model_type 2)'],
    ['a model type that is none', modelBytes({ trainer: field(3, 0, [9]) }), 'model_type is 9'],
    ['no unknown piece', modelBytes({ pieces: PIECES.slice(1) }), 'no unknown piece'],
    ['two unknown pieces', modelBytes({ pieces: [...PIECES, piece('<u2>', 0, 2)] }), 'a second unknown piece'],
    ['a piece twice', modelBytes({ pieces: [...PIECES, piece('a', -1)] }), 'piece 6 "a" is already defined'],
    ['an empty piece', modelBytes({ pieces: [...PIECES, piece('', -1)] }), 'piece 6 is empty'],
    ['a piece type that is none', modelBytes({ pieces: [...PIECES, piece('c', -1, 9)] }), 'piece 6 has type 9'],
    [
      'a piece that is not UTF-8',
      modelBytes({ pieces: [...PIECES, message(1, message(1, [0xff]))] }),
      'not valid UTF-8',
    ],
    [
      'a byte piece without byte_fallback',
      modelBytes({ pieces: [...PIECES, piece('<0x41>', 0, 6)] }),
      'byte_fallback is false',
    ],
    ['byte_fallback without its 256 pieces', modelBytes({ trainer: field(35, 0, [1]) }), '0 byte pieces'],
    [
      'a character map whose trie claims more than it has',
      modelBytes({ normalizer: message(2, [0xff, 0xff, 0, 0, 1, 2, 3]) }),
      'claims 65535 bytes',
    ],
  ])('%s', (_, bytes, problem) => {
    expect(() => parse(bytes)).toThrow(/^source\.spm: /);
    expect(() => parse(bytes)).toThrow(problem);
  });

  test('every cut of a real file is an Error naming it, or a model (a cut between two pieces)', () => {
    for (let length = 1; length < good.length; length += 997) {
      let model;
      try {
        model = parse(good.subarray(0, length));
      } catch (error) {
        expect(error.message).toMatch(/^source\.spm: .*; not a SentencePiece model this package reads$/);
        continue;
      }
      expect(model.pieces.length).toBeGreaterThan(0);
    }
  });

  test(`more than ${MAX_PIECES} pieces are refused while reading, before they are kept`, () => {
    const empty = [0x0a, 0x00]; // an empty piece: 2 bytes each
    const bytes = new Uint8Array((MAX_PIECES + 1) * 2);
    for (let i = 0; i < bytes.length; i += 2) bytes.set(empty, i);
    expect(() => parse(bytes)).toThrow(`source.spm: more than ${MAX_PIECES} pieces`);
  });

  test('a character map that grows a text more than 64 times is refused on that text', () => {
    const normalizer = message(2, charsmap('x'.repeat(1000)));
    const sp = new SentencePiece(parse(modelBytes({ normalizer })), 'source.spm');
    expect(sp.encode('b')).toEqual(['\u2581', 'b']); // no rule for b
    expect(() => sp.encode('aaaa')).toThrow(/^source\.spm: its normalizer makes more than 64 bytes of a byte/);
  });

  test('a character map whose index points past its end is refused on the text that reaches it', () => {
    const normalizer = message(2, charsmap('x', { offset: 1 << 20 }));
    const sp = new SentencePiece(parse(modelBytes({ normalizer })), 'source.spm');
    expect(sp.encode('b')).toEqual(['\u2581', 'b']);
    expect(() => sp.encode('a')).toThrow(/^source\.spm: its normalizer's precompiled_charsmap is damaged/);
  });

  test('through createTokenizer: a bad source.spm or target.spm names its file, the worker included', async () => {
    const bad = Uint8Array.of(0x0a, 0xff, 0x01);
    await expect(createTokenizer({ ...loaderFiles(), 'source.spm': bad }, inThreadTokenizerHost)).rejects.toThrow(
      /^source\.spm: /,
    );
    await expect(createTokenizer({ ...loaderFiles(), 'target.spm': bad }, inThreadTokenizerHost)).rejects.toThrow(
      /^target\.spm: /,
    );
    // A growth the file's reading cannot see: the probe text (which has an "a") is refused in the worker.
    const bomb = modelBytes({ normalizer: message(2, charsmap('x'.repeat(10_000))) });
    const files = { ...loaderFiles(), 'source.spm': bomb, 'vocab.json': '{"</s>": 0, "<unk>": 1}' };
    await expect(createTokenizer(files, nodeTokenizerHost)).rejects.toThrow(
      /^source\.spm: the tokenizer failed on this text \(source\.spm: its normalizer makes more than 64 bytes/,
    );
    const host = await nodeTokenizerHost(new MarianFiles(FILES), CONFIG, 'source.spm');
    try {
      expect((await host.encode('毒蛇')).ids).toEqual(marian.encode('毒蛇').ids); // the host is fine after all that
    } finally {
      host.dispose();
    }
  }, 30_000);
});
