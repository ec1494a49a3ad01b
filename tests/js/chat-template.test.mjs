// model.applyChatTemplate() against transformers' own apply_chat_template
// (tests/tools/make_chat_fixtures.py, tests/fixtures/chat/): the Qwen2.5,
// Llama 3.1/3.2 and SmolLM2 instruct templates over conversations with and
// without a system message, several turns, Chinese text, with and without the
// generation prompt, tools; the named-list form; a GGUF file's
// tokenizer.chat_template; the ids (tokenize) where the template's tokens are
// the tokenizer's; strftime_now against Python's strftime; refusals.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { strftime } from '../../src/js/models/tokenizers/chat-render.mjs';
import { nodeTokenizerHost } from '../../src/js/models/tokenizers/node-host.mjs';
import { readGgufHeader } from '../../src/js/models/formats/gguf/reader.mjs';
import { ggufTokenizerFiles } from '../../src/js/models/formats/gguf/tokenizer.mjs';
import { fileAt } from '../../src/js/models/sources/folder.mjs';
import { filesToRead } from '../../src/js/models/checkpoint-files.mjs';
import { folderFiles } from '../tools/hub-server.mjs';

const CHAT = fileURLToPath(new URL('../fixtures/chat/', import.meta.url));
const QWEN2 = fileURLToPath(new URL('../fixtures/models/hf-qwen2/', import.meta.url));
const json = (file) => JSON.parse(readFileSync(path.join(CHAT, file), 'utf8'));
const { cases, conversations } = json('cases.json');
const { cases: ggufCases } = json('gguf-cases.json');
const { 'reference.json': _, 'tokenizer_config.json': __, ...QWEN2_FILES } = folderFiles(QWEN2);
const TEMPLATES = [...new Set(cases.map((c) => c.template))];

/**
 * hf-qwen2's files with tokenizer-configs/<name>.json as its tokenizer_config.json ('chat_template.jinja':
 * Llama 3.1's, with Qwen2.5-7B's template as a chat_template.jinja beside it).
 */
const withTokenizerConfig = (name) =>
  name === 'chat_template.jinja'
    ? {
        ...withTokenizerConfig('llama-3.1-8b-instruct'),
        'chat_template.jinja': readFileSync(path.join(CHAT, 'templates', 'qwen2.5-7b-instruct.jinja')),
      }
    : { ...QWEN2_FILES, 'tokenizer_config.json': readFileSync(path.join(CHAT, 'tokenizer-configs', `${name}.json`)) };
const rejection = (promise) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e) => e,
  );

let engine;
beforeAll(async () => {
  engine = await createAttention({ threads: 1 });
});
afterAll(() => engine?.dispose());

describe.each(TEMPLATES)('%s', (name) => {
  let model;
  beforeAll(async () => {
    model = await engine.loadModel(withTokenizerConfig(name));
  });
  afterAll(() => model?.dispose());

  test("transformers' apply_chat_template text, every conversation, with and without the generation prompt", async () => {
    const mine = cases.filter((c) => c.template === name);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const c of mine) {
      const messages = c.messages ?? conversations[c.conversation];
      const options = { addGenerationPrompt: c.addGenerationPrompt, variables: c.variables };
      if (c.tools) options.tools = c.tools;
      if (c.continueFinalMessage) options.continueFinalMessage = true;
      const label = `${c.conversation}, addGenerationPrompt ${c.addGenerationPrompt}`;
      expect([label, await model.applyChatTemplate(messages, options)]).toEqual([label, c.text]);
      if (c.ids) {
        const out = await model.applyChatTemplate(messages, { ...options, tokenize: true });
        expect([label, out.text, Array.from(out.inputIds)]).toEqual([label, c.text, c.ids]);
        expect(out.tokens).toHaveLength(c.ids.length);
      }
    }
  });
});

test("a GGUF file's tokenizer.chat_template renders as transformers' AutoTokenizer(gguf_file=…) renders it", async () => {
  const model = await engine.loadModel(path.join(CHAT, 'qwen2-chat.gguf'));
  try {
    for (const c of ggufCases) {
      const options = { addGenerationPrompt: c.addGenerationPrompt, tokenize: true };
      const out = await model.applyChatTemplate(conversations[c.conversation], options);
      expect([c.conversation, out.text, Array.from(out.inputIds)]).toEqual([c.conversation, c.text, c.ids]);
    }
  } finally {
    model.dispose();
  }
});

test("a GGUF file's tokenizer.chat_template that is not a string: BadTokenizer naming the file and the key", async () => {
  const file = path.join(CHAT, 'qwen2-chat.gguf');
  const { metadata } = await readGgufHeader(fileAt(file, 'qwen2-chat.gguf', readFileSync(file).length));
  const template = metadata.get('tokenizer.chat_template');
  expect(JSON.parse(ggufTokenizerFiles('qwen2-chat.gguf', metadata)['tokenizer_config.json']).chat_template).toBe(
    template.value,
  );
  metadata.set('tokenizer.chat_template', { type: 'UINT32', value: 7 });
  let error;
  try {
    ggufTokenizerFiles('qwen2-chat.gguf', metadata);
  } catch (e) {
    error = e;
  }
  expect([error?.code, error?.file, error?.field, error?.message]).toEqual([
    'BadTokenizer',
    'qwen2-chat.gguf',
    'tokenizer.chat_template',
    'qwen2-chat.gguf: tokenizer.chat_template: a UINT32, expected a string',
  ]);
});

test('chat_template.jinja is read (and downloaded) with a tokenizer, and wins over tokenizer_config.json', () => {
  const has = (names) => (name) => names.includes(name);
  const repo = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja', 'model.safetensors'];
  expect(filesToRead(has(repo))).toEqual([
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'chat_template.jinja',
  ]);
  expect(filesToRead(has(repo.filter((n) => n !== 'tokenizer.json')))).toEqual([
    'config.json',
    'tokenizer_config.json',
  ]);
  // (Its cases above: Llama 3.1's tokenizer_config.json beside a chat_template.jinja of Qwen2.5's renders Qwen's.)
  expect(cases.filter((c) => c.template === 'chat_template.jinja')[0].text).toMatch(/^<\|im_start\|>system/);
});

test("strftime_now's formatting is Python's strftime (C locale)", () => {
  const cases = json('strftime.json');
  expect(cases.length).toBeGreaterThan(10);
  for (const { date, format, text } of cases) {
    const [y, mo, d, h, mi, s] = date;
    expect([format, strftime(new Date(y, mo - 1, d, h, mi, s), format)]).toEqual([format, text]);
  }
});

describe('refusals', () => {
  let model;
  let bare;
  beforeAll(async () => {
    model = await engine.loadModel(withTokenizerConfig('qwen2.5-7b-instruct'));
    bare = await engine.loadModel(folderFiles(QWEN2)); // hf-qwen2 as it is: no chat_template
  });
  afterAll(() => {
    model?.dispose();
    bare?.dispose();
  });

  test('a model without a chat template: NoChatTemplate, naming tokenizer_config.json', async () => {
    const error = await rejection(bare.applyChatTemplate([{ role: 'user', content: 'Hi' }]));
    expect([error.code, error.file]).toEqual(['NoChatTemplate', 'tokenizer_config.json']);
    expect(error.message).toMatch(/applyChatTemplate: this qwen2 checkpoint has no chat template/);
    expect(() => bare.chat()).toThrow(/chat: this qwen2 checkpoint has no chat template/);
    // A template given by the caller needs none in the file.
    const text = await bare.applyChatTemplate([{ role: 'user', content: 'Hi' }], {
      chatTemplate: '{% for m in messages %}[{{ m.role }}] {{ m.content }}{% endfor %}{{ eos_token }}',
    });
    expect(text).toBe('[user] Hi<|endoftext|>');
  });

  test('bad messages and options: TypeError or RangeError naming the argument', async () => {
    const bad = [
      [undefined, /^messages: expected a non-empty array/],
      [[], /^messages: expected a non-empty array/],
      [['Hi'], /^messages\[0\]: expected \{ role, content \}/],
      [[{ content: 'Hi' }], /^messages\[0\]\.role: expected a string/],
      [[{ role: 'user', content: 5 }], /^messages\[0\]\.content: expected a string/],
      [[{ role: 'user', content: 'Hi', extra: () => 1 }], /^messages\[0\]\.extra: expected a JSON value/],
      [[{ role: 'user', content: 'Hi', n: NaN }], /^messages\[0\]\.n: expected a finite number/],
      [[{ role: 'user', content: 'Hi', at: new Date(0) }], /^messages\[0\]\.at: expected a JSON value/],
      [[{ role: 'user', content: 'Hi', seen: new Map() }], /^messages\[0\]\.seen: expected a JSON value/],
    ];
    for (const [messages, message] of bad) {
      const error = await rejection(model.applyChatTemplate(messages));
      expect([message, error]).toEqual([message, expect.any(TypeError)]);
      expect(error.message).toMatch(message);
      expect(error.code).toBe('InvalidArgument');
    }
    const ok = [{ role: 'user', content: 'Hi' }];
    // A plain object of another realm (an iframe's) is a message like any other.
    const other = vm.runInNewContext("[{ role: 'user', content: 'Hi', extra: { n: [1] } }]");
    expect(await model.applyChatTemplate(other)).toBe(await model.applyChatTemplate(ok));
    await expect(model.applyChatTemplate(ok, { addGenerationPrompt: 1 })).rejects.toThrow(
      /^addGenerationPrompt: expected a boolean/,
    );
    await expect(model.applyChatTemplate(ok, { tools: {} })).rejects.toThrow(/^tools: expected an array/);
    await expect(model.applyChatTemplate(ok, { nope: 1 })).rejects.toThrow(/nope/);
    await expect(
      model.applyChatTemplate(ok, { addGenerationPrompt: true, continueFinalMessage: true }),
    ).rejects.toThrow(/^addGenerationPrompt, continueFinalMessage: give one of them/);
    const open = [...ok, { role: 'assistant', content: null }];
    await expect(model.applyChatTemplate(open, { continueFinalMessage: true })).rejects.toThrow(
      /^continueFinalMessage: the final message has no "content" to continue/,
    );
    await expect(model.applyChatTemplate(ok, { continueFinalMessage: 'reasoning' })).rejects.toThrow(
      /^continueFinalMessage: the final message has no "reasoning" to continue/,
    );
    await expect(model.applyChatTemplate(ok, { variables: { messages: [] } })).rejects.toThrow(
      /^variables\.messages: set by applyChatTemplate itself/,
    );
  });

  test("a template's raise_exception: a RangeError with its words; one that does not parse: an Error naming the file", async () => {
    const refuse = "{{ raise_exception('Conversation roles must alternate') }}";
    const error = await rejection(model.applyChatTemplate([{ role: 'user', content: 'Hi' }], { chatTemplate: refuse }));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(/messages: the chat template refuses them: Conversation roles must alternate/);
    const unclosed = '{% for m in messages %}';
    const mine = await rejection(
      model.applyChatTemplate([{ role: 'user', content: 'Hi' }], { chatTemplate: unclosed }),
    );
    expect(mine).toBeInstanceOf(RangeError);
    expect(mine.message).toMatch(/^chatTemplate: does not parse \(/);
    const config = JSON.parse(readFileSync(path.join(CHAT, 'tokenizer-configs', 'qwen2.5-7b-instruct.json'), 'utf8'));
    const files = {
      ...QWEN2_FILES,
      'tokenizer_config.json': Buffer.from(JSON.stringify({ ...config, chat_template: unclosed })),
    };
    const bad = await engine.loadModel(files);
    try {
      const broken = await rejection(bad.applyChatTemplate([{ role: 'user', content: 'Hi' }]));
      expect(broken.message).toMatch(/^tokenizer_config\.json: chat_template does not parse \(/);
      expect([broken.code, broken.file]).toEqual(['BadTokenizer', 'tokenizer_config.json']);
    } finally {
      bad.dispose();
    }
  });

  test("a template reaches no JavaScript object's properties (the interpreter's own values only)", async () => {
    const text = await model.applyChatTemplate([{ role: 'user', content: 'Hi' }], {
      chatTemplate: '{{ messages.constructor }}|{{ messages.__proto__ }}|{{ "".constructor }}',
    });
    expect(text).toBe('||');
  });
});

test('a template that runs for ever, or grows without end, is stopped by the tokenizer worker’s bounds', async () => {
  const json = JSON.parse(readFileSync(path.join(QWEN2, 'tokenizer.json'), 'utf8'));
  const forever = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}';
  const grows =
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}";
  const config = { chat_template: forever };
  const host = await nodeTokenizerHost(json, config, 'tokenizer.json', { seconds: 1, heapMb: 64 });
  const context = { messages: [{ role: 'user', content: 'Hi' }], tools: null, documents: null };
  try {
    await expect(host.render({ template: null, file: 'tokenizer_config.json', context })).rejects.toThrow(
      'tokenizer.json: rendering the chat template took more than 1 s, so the tokenizer was stopped (a template that loops',
    );
    await expect(host.render({ template: grows, context })).rejects.toThrow(
      // Whichever bound it meets first: the heap, V8's longest string, or (on a loaded machine) the time.
      /tokenizer\.json: the tokenizer used more than its 64 MB of memory|Invalid string length|took more than 1 s/,
    );
    expect(await host.render({ template: '{{ messages[0].content }}', context })).toBe('Hi'); // a fresh worker
  } finally {
    host.dispose();
  }
}, 30_000);
