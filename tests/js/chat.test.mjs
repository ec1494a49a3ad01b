// model.chat(): a two-turn conversation on hf-qwen2 (with 256 positions) with
// Qwen2.5's template, against transformers running the same conversation
// (tests/tools/make_chat_fixtures.py: each turn's ids from apply_chat_template,
// greedy generate()'s new ids, the reply decoded, float64 logits of the turn's
// last position). Turn 2 prefills only the ids the cache lacks, and its
// logits and attention are those of a fresh run() over the whole rendered
// conversation, bit for bit; a reply that tokenizes back to other ids rewinds the cache;
// undo(), fork(), another call on the cache between turns.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { expectNear } from './helpers/compare.mjs';
import { folderFiles } from '../tools/hub-server.mjs';

const CHAT = fileURLToPath(new URL('../fixtures/chat/', import.meta.url));
const QWEN2 = fileURLToPath(new URL('../fixtures/models/hf-qwen2/', import.meta.url));
const ref = JSON.parse(readFileSync(path.join(CHAT, 'conversation.json'), 'utf8'));
const { tolerance } = JSON.parse(readFileSync(path.join(QWEN2, 'reference.json'), 'utf8'));
const { 'reference.json': _, ...QWEN2_FILES } = folderFiles(QWEN2);
const FILES = {
  ...QWEN2_FILES,
  'config.json': readFileSync(path.join(CHAT, 'qwen2-chat', 'config.json')),
  'tokenizer_config.json': readFileSync(path.join(CHAT, 'tokenizer-configs', 'qwen2.5-7b-instruct.json')),
};
const [extends_, rewritten] = ref.conversations;
const N = ref.maxNewTokens;

let engine;
let model;
beforeAll(async () => {
  engine = await createAttention({ threads: 1 });
  model = await engine.loadModel(FILES);
});
afterAll(() => {
  model?.dispose();
  engine?.dispose();
});

// The last row of run()'s logits over `ids`, and its attention's last query rows.
async function fresh(ids, n) {
  const r = await model.run({ inputIds: ids }, { returnLogits: true });
  const V = model.config.vocabSize;
  const [layers, heads, T] = r.attentions.decoder.shape;
  const rows = new Float32Array(layers * heads * n * T);
  for (let b = 0; b < layers * heads; b++)
    rows.set(r.attention.subarray((b * T + T - n) * T, (b * T + T) * T), b * n * T);
  return { logits: r.logits.subarray((ids.length - 1) * V), rows };
}

test('two turns as transformers runs them; turn 2 prefills only the new turn, as a fresh run() of the whole', async () => {
  expect(extends_.extends).toBe(true);
  const [t1, t2] = extends_.turns;
  const chat = model.chat({ system: 'Be brief.' });
  const steps1 = [];
  for await (const s of chat.sendSteps(extends_.first, { maxNewTokens: N })) steps1.push(s);
  expect(steps1.map((s) => s.id)).toEqual(t1.newIds);
  expect([steps1[0].prefilled, steps1[0].reused]).toEqual([t1.inputIds.length, 0]);
  expectNear(steps1[0].logits, t1.lastLogits, tolerance.logitsAbs, tolerance.logitsRel, 'turn 1 logits');
  expect(steps1.map((s) => s.textDelta).join('')).toBe(t1.reply);
  expect(chat.messages).toEqual(t2.messages.slice(0, 3));
  // What the cache holds: turn 1's ids and its reply's but the last (chosen, not fed).
  const held = [...t1.inputIds, ...t1.newIds.slice(0, -1)];
  expect(Array.from(chat.cachedIds)).toEqual(held);

  const steps2 = [];
  for await (const s of chat.sendSteps(extends_.second, { maxNewTokens: N })) steps2.push(s);
  expect(steps2[0].outputIds.slice(0, t2.inputIds.length)).toEqual(Int32Array.from(t2.inputIds));
  // Only the new turn: turn 2's ids minus those the cache held.
  expect([steps2[0].prefilled, steps2[0].reused]).toEqual([t2.inputIds.length - held.length, held.length]);
  expect(steps2.map((s) => s.id)).toEqual(t2.newIds);
  expectNear(steps2[0].logits, t2.lastLogits, tolerance.logitsAbs, tolerance.logitsRel, 'turn 2 logits');
  // A fresh run() of the whole rendered conversation: the same logits and new rows of attention, bit for bit
  // (a step's rows are run()'s with the same returnAttention).
  const whole = await fresh(t2.inputIds, steps2[0].prefilled);
  expectNear(steps2[0].logits, whole.logits, 0, 0, 'turn 2 logits against run()');
  expect(steps2[0].attentions.decoder.shape).toEqual([2, 4, steps2[0].prefilled, t2.inputIds.length]);
  expectNear(steps2[0].attention, whole.rows, 0, 0, 'turn 2 attention against run()');
  expect(chat.messages.map((m) => m.content)).toEqual([...t2.messages.map((m) => m.content), t2.reply]);
});

/** The ids of `a` and `b` alike from the start (at most b's but one: a turn feeds one id at least). */
const shared = (a, b) => {
  let n = 0;
  while (n < a.length && n < b.length - 1 && a[n] === b[n]) n++;
  return n;
};

test('a reply that tokenizes back to other ids: the cache is cut where they part, the rest fed', async () => {
  expect(rewritten.extends).toBe(false);
  const [t1, t2] = rewritten.turns;
  const chat = model.chat({ system: 'Be brief.' });
  const r1 = await chat.send(rewritten.first, { maxNewTokens: N });
  expect([Array.from(r1.outputIds.slice(t1.inputIds.length)), r1.text]).toEqual([t1.newIds, t1.reply]);
  const kept = shared(Array.from(chat.cachedIds), t2.inputIds);
  expect(kept).toBeLessThan(chat.cachedIds.length);
  const r2 = await chat.send(rewritten.second, { maxNewTokens: N });
  expect(Array.from(r2.inputIds)).toEqual(t2.inputIds);
  expect([r2.prefilled, r2.reused]).toEqual([t2.inputIds.length - kept, kept]);
  expect(Array.from(r2.outputIds.slice(t2.inputIds.length))).toEqual(t2.newIds);
  expect(r2.text).toBe(t2.reply);
});

test('undo() takes the last exchange back; fork() starts apart; another call on the cache costs a prefill', async () => {
  const [t1, t2] = extends_.turns;
  const chat = model.chat({ system: 'Be brief.' });
  await chat.send(extends_.first, { maxNewTokens: N });
  const fork = chat.fork();
  await chat.send(extends_.second, { maxNewTokens: N });
  const undone = chat.undo();
  expect(undone.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(chat.messages).toEqual(t2.messages.slice(0, 3));
  // After undo the cache holds more than the conversation: cut where they part, the rest fed.
  const kept = shared(Array.from(chat.cachedIds), t2.inputIds);
  const again = await chat.send(extends_.second, { maxNewTokens: N });
  expect([again.prefilled, again.reused, Array.from(again.outputIds.slice(t2.inputIds.length))]).toEqual([
    t2.inputIds.length - kept,
    kept,
    t2.newIds,
  ]);
  expect(kept).toBeGreaterThan(t1.inputIds.length);
  // The fork's first turn prefills its whole history (the cache was the other conversation's).
  const forked = await fork.send(extends_.second, { maxNewTokens: N });
  expect([forked.prefilled, forked.reused, Array.from(forked.inputIds)]).toEqual([t2.inputIds.length, 0, t2.inputIds]);
  // Another call between turns: the next turn prefills again, with the same result.
  const other = model.chat({ system: 'Be brief.' });
  await other.send(extends_.first, { maxNewTokens: 2 });
  await model.prefill({ inputIds: [1, 2, 3] });
  expect(other.cachedIds).toHaveLength(0);
  const after = await other.send('Why?', { maxNewTokens: 2 });
  expect([after.prefilled, after.reused]).toEqual([after.inputIds.length, 0]);
  expect(t1.inputIds.length).toBeLessThan(after.inputIds.length);
});

test('another call between two steps of a turn: the turn feeds its conversation again and goes on the same', async () => {
  const [t1] = extends_.turns;
  const chat = model.chat({ system: 'Be brief.' });
  const steps = [];
  for await (const s of chat.sendSteps(extends_.first, { maxNewTokens: N })) {
    steps.push(s);
    if (s.step === 2) await model.prefill({ inputIds: [5, 6, 7] });
  }
  expect(steps.map((s) => s.id)).toEqual(t1.newIds);
  // Step 3's attention: the row of the one id fed, over every key the conversation has (the prefill's rows cut).
  expect(steps[2].attentions.decoder.shape).toEqual([2, 4, 1, t1.inputIds.length + 2]);
  expect(Array.from(chat.cachedIds)).toEqual([...t1.inputIds, ...t1.newIds.slice(0, -1)]);
});

test('a turn stopped by the caller joins the messages with the reply so far; a failed one does not', async () => {
  const [t1] = extends_.turns;
  const chat = model.chat({ system: 'Be brief.' });
  for await (const s of chat.sendSteps(extends_.first, { maxNewTokens: N })) if (s.step === 2) break;
  const reply = await model.decode(t1.newIds.slice(0, 2));
  expect(chat.messages.slice(1)).toEqual([
    { role: 'user', content: extends_.first },
    { role: 'assistant', content: reply },
  ]);
  const before = chat.messages;
  const controller = new AbortController();
  const aborted = chat.send('Why?', {
    maxNewTokens: N,
    onStep: (s) => s.step === 2 && controller.abort(),
    signal: controller.signal,
  });
  await expect(aborted).rejects.toThrow();
  await expect(
    chat.send('Why?', {
      maxNewTokens: N,
      onStep: () => {
        throw new Error('mine');
      },
    }),
  ).rejects.toThrow('mine');
  expect(chat.messages).toEqual(before);
  // The failed turns fed the cache past the conversation (the aborted one a token of its reply): the cache is
  // cut where the next rendering parts from it, and the turn is the same as a fresh conversation's.
  const kept = shared(
    Array.from(chat.cachedIds),
    (
      await model.applyChatTemplate([...before, { role: 'user', content: 'Why?' }], {
        addGenerationPrompt: true,
        tokenize: true,
      })
    ).inputIds,
  );
  const turn = await chat.send('Why?', { maxNewTokens: 2 });
  expect([turn.prefilled, turn.reused]).toEqual([turn.inputIds.length - kept, kept]);
  const want = await model.chat({ messages: before }).send('Why?', { maxNewTokens: 2 });
  expect([Array.from(turn.outputIds), turn.text]).toEqual([Array.from(want.outputIds), want.text]);
});

test('refusals: an encoder has no chat; bad content and options name the argument', async () => {
  const chat = model.chat({ system: 'Be brief.' });
  await expect(chat.send(5)).rejects.toThrow(/^content: expected the user's message as a string, got number 5/);
  await expect(chat.send('Hi', { maxNewTokens: 0 })).rejects.toThrow(/^maxNewTokens: expected 1 to/);
  expect(() => model.chat({ system: 1 })).toThrow(/^system: expected the system message as a string/);
  expect(() => model.chat({ system: 'a', messages: [] })).toThrow(/^system, messages: give one of them/);
  expect(() => model.chat({ nope: 1 })).toThrow(/nope/);
  // Longer than the model's positions: the turn's and generate()'s errors say what maxLength counted.
  const { maxLength } = model.config;
  await expect(chat.send('Hi', { maxNewTokens: maxLength - 1 })).rejects.toThrow(
    new RegExp(
      `^maxLength: \\d+ tokens \\(the conversation's \\d+ and the reply's\\), more than the ${maxLength} positions`,
    ),
  );
  await expect(model.generate('Hi', { maxNewTokens: maxLength - 1 })).rejects.toThrow(
    new RegExp(
      `^maxLength: \\d+ tokens \\(the prompt's \\d+ and the new ones\\), more than the ${maxLength} positions`,
    ),
  );
  expect(chat.messages).toEqual([{ role: 'system', content: 'Be brief.' }]);
  const bert = await engine.loadModel(folderFiles(path.join(QWEN2, '../hf-bert-mlm')));
  try {
    expect(() => bert.chat()).toThrow(/^chat: a bert is an encoder; a conversation over a KV cache is a decoder's/);
  } finally {
    bert.dispose();
  }
});
