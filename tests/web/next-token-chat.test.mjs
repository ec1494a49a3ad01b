// The next-token view's chat (web/model/next-token-chat.mjs) on hf-qwen2 (256
// positions) with Qwen2.5's template, against transformers running the same
// conversations (tests/fixtures/chat/conversation.json, written by
// tests/tools/make_chat_fixtures.py): each turn's text events are
// transformers' greedy new ids and their deltas join to its decoded reply;
// each record is a step of the view as TokenSteps' are — its attention and
// logits those of run() over its ids, bit for bit, its token the most
// probable of the row before; the last token has none; room() counts
// transformers' rendered ids; undo gives the message back; a stopped turn
// keeps the reply so far. And the Hub suggestions' sizes (web/model/hub-models.mjs).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { folderFiles } from '../tools/hub-server.mjs';
import { topTokens } from '../../web/model/predictions.mjs';
import { CHAT_FIRST, ChatSteps, hasChatTemplate } from '../../web/model/next-token-chat.mjs';
import { SUGGESTED_MODELS, suggestionDownload, suggestionKey } from '../../web/model/hub-models.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { lastRows } from '../js/helpers/attention-rows.mjs';
import { expectSameBits } from '../js/helpers/compare.mjs';

const CHAT = fileURLToPath(new URL('../fixtures/chat/', import.meta.url));
const QWEN2 = fileURLToPath(new URL('../fixtures/models/hf-qwen2/', import.meta.url));
const ref = JSON.parse(readFileSync(path.join(CHAT, 'conversation.json'), 'utf8'));
const { 'reference.json': _, ...QWEN2_FILES } = folderFiles(QWEN2);
const FILES = {
  ...QWEN2_FILES,
  'config.json': readFileSync(path.join(CHAT, 'qwen2-chat', 'config.json')),
  'tokenizer_config.json': readFileSync(path.join(CHAT, 'tokenizer-configs', 'qwen2.5-7b-instruct.json')),
};
const N = ref.maxNewTokens;
// The conversation that starts with the sentence (the chat box's first message).
const snake = ref.conversations.find((c) => c.first === SENTENCE);

let engine, model;
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd', threads: 1 });
  model = await engine.loadModel(FILES);
});
afterAll(() => {
  model?.dispose();
  engine?.dispose();
});

/** A turn's events: { texts, records }. */
async function turn(chat, content, options = {}) {
  const texts = [];
  const records = [];
  for await (const out of chat.send(content, { maxNewTokens: N, ...options }))
    (out.kind === 'text' ? texts : records).push(out.kind === 'text' ? out : out.record);
  return { texts, records };
}

// A record against run() over its ids, as a step of TokenSteps (tests/web/next-token-steps.test.mjs).
async function expectRunOf(record, ids, step) {
  const { numLayers, numHeads, vocabSize: V } = model.config;
  const n = ids.length;
  expect(Array.from(record.ids)).toEqual(ids);
  expect([record.step, record.position, record.id]).toEqual([step, n - 1, ids[n - 1]]);
  expect(record.tokens).toEqual(model.pieces(record.ids));
  const before = await model.run({ inputIds: Int32Array.from(ids.slice(0, -1)) }, { returnLogits: true });
  const want = before.logits.subarray((n - 2) * V, (n - 1) * V);
  expectSameBits(record.from, want, `token ${step}: the row it was chosen from`);
  expect(topTokens(want, 1)[0].id).toBe(record.id);
  const whole = await model.run({ inputIds: Int32Array.from(ids) }, { returnLogits: true });
  expectSameBits(
    record.attention,
    lastRows(whole.attention, { numLayers, numHeads, length: n }),
    `token ${step}: its attention`,
  );
  expectSameBits(record.logits, whole.logits.subarray((n - 1) * V, n * V), `token ${step}: the logits after it`);
}

test('the first message is the sentence; a checkpoint has a chat template or not', async () => {
  expect(CHAT_FIRST).toBe(SENTENCE);
  expect(snake).toBeDefined();
  expect(await hasChatTemplate(model)).toBe(true);
  const plain = await engine.loadModel(QWEN2); // hf-qwen2's own tokenizer_config.json has no chat_template
  try {
    expect(await hasChatTemplate(plain)).toBe(false);
  } finally {
    plain.dispose();
  }
  expect(await hasChatTemplate(null)).toBe(false);
  expect(await hasChatTemplate({ applyChatTemplate: () => 'x' })).toBe(false); // no chat(): no decoder
});

test("two turns: transformers' ids and text, each record run()'s bit for bit, undo and room", async () => {
  const chat = new ChatSteps(model, { system: 'Be brief.' }); // as transformers' conversations
  for (const [i, content] of [snake.first, snake.second].entries()) {
    const want = snake.turns[i];
    expect(await chat.room(content)).toEqual({
      length: want.inputIds.length,
      room: model.config.maxLength - want.inputIds.length,
    });
    const { texts, records } = await turn(chat, content);
    expect(texts.map((t) => t.id)).toEqual(want.newIds);
    expect(texts.map((t) => t.step)).toEqual(want.newIds.map((_, k) => k + 1));
    expect(texts.map((t) => t.textDelta).join('')).toBe(want.reply);
    expect(chat.messages.at(-1)).toEqual({ role: 'assistant', content: want.reply });
    // Every token but the last was fed back: a record each, in order, after its text.
    expect(records).toHaveLength(want.newIds.length - 1);
    for (const [k, record] of records.entries())
      await expectRunOf(record, [...want.inputIds, ...want.newIds.slice(0, k + 1)], k + 1);
  }
  expect(chat.messages.map((m) => m.content)).toEqual([
    'Be brief.',
    snake.first,
    snake.turns[0].reply,
    snake.second,
    snake.turns[1].reply,
  ]);
  expect(chat.undo()).toBe(snake.second);
  expect(chat.messages).toHaveLength(3);
  expect(chat.undo()).toBe(snake.first);
  expect(chat.undo()).toBeNull();
  // Again from nothing: the same first turn.
  const again = await turn(chat, snake.first);
  expect(again.texts.map((t) => t.id)).toEqual(snake.turns[0].newIds);
});

test('a stopped turn keeps the reply so far', async () => {
  const chat = new ChatSteps(model, { system: 'Be brief.' });
  let n = 0;
  const { texts, records } = await turn(chat, snake.first, { stopped: () => ++n >= 2 });
  expect(texts.map((t) => t.id)).toEqual(snake.turns[0].newIds.slice(0, 2));
  expect(records).toHaveLength(1);
  expect(chat.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
  expect(chat.messages[2].content).toBe(await model.decode(snake.turns[0].newIds.slice(0, 2)));
});

test("the suggestions: a GGUF file's own size from the file list, else what loading reads", () => {
  const gguf = SUGGESTED_MODELS.filter((s) => s.file);
  expect(gguf.map((s) => `${s.repo}/${s.file}`)).toEqual([
    'Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf',
    'Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q8_0.gguf',
  ]);
  expect(new Set(SUGGESTED_MODELS.map(suggestionKey)).size).toBe(SUGGESTED_MODELS.length);
  const list = {
    files: [
      { name: 'qwen2.5-0.5b-instruct-q8_0.gguf', size: 531 },
      { name: 'qwen2.5-0.5b-instruct-fp16.gguf', size: 994 },
    ],
    download: null,
  };
  expect(suggestionDownload(gguf[1], list)).toEqual({ names: [gguf[1].file], bytes: 531, exact: true });
  expect(suggestionDownload(gguf[0], list)).toBeNull();
  const download = { names: ['config.json', 'model.safetensors'], bytes: 7, exact: true };
  expect(suggestionDownload(SUGGESTED_MODELS[0], { files: [], download })).toBe(download);
});
