// Chat in the page, in headless Chromium: the chat template renders in the
// tokenizer's Worker (dist/mha-model-tokenizer.js, with @huggingface/jinja
// bundled), as transformers' apply_chat_template renders it
// (tests/fixtures/chat/cases.json), whatever the browser's locale; and a
// two-turn conversation feeds only its new turn, as transformers runs it
// (tests/fixtures/chat/conversation.json).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderFiles } from '../tools/hub-server.mjs';
import { launchWithServer, openBlankPage } from './chromium.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const CHAT = fileURLToPath(new URL('../fixtures/chat/', import.meta.url));
const QWEN2 = fileURLToPath(new URL('../fixtures/models/hf-qwen2/', import.meta.url));
const json = (file) => JSON.parse(readFileSync(path.join(CHAT, file), 'utf8'));
const { cases, conversations } = json('cases.json');
const conversation = json('conversation.json').conversations[0];
const { 'reference.json': _, ...QWEN2_FILES } = folderFiles(QWEN2);
const FILES = Object.fromEntries(
  Object.entries({
    ...QWEN2_FILES,
    'config.json': readFileSync(path.join(CHAT, 'qwen2-chat', 'config.json')),
    'tokenizer_config.json': readFileSync(path.join(CHAT, 'tokenizer-configs', 'qwen2.5-7b-instruct.json')),
  }).map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]),
);
const QWEN_CASES = cases.filter((c) => c.template === 'qwen2.5-7b-instruct' && conversations[c.conversation]);

let browser, url;
beforeAll(async () => {
  browser = await launchWithServer();
  ({ url } = browser);
}, 60_000);
afterAll(() => browser?.close());

test("the page renders chat templates as transformers does, in the tokenizer's worker, and a turn feeds only its new ids", async () => {
  const { page, problems } = await openBlankPage(browser.context, url);
  const workers = [];
  page.on('worker', (worker) => workers.push(worker.url()));
  const report = await page.evaluate(
    async ({ files, options, tests, first, second, maxNewTokens }) => {
      const bytes = Object.fromEntries(
        Object.entries(files).map(([n, b]) => [n, Uint8Array.from(atob(b), (c) => c.charCodeAt(0))]),
      );
      const { createAttention } = await import('/src/js/model-entry.mjs');
      const engine = await createAttention(options);
      try {
        const model = await engine.loadModel(bytes);
        const texts = [];
        for (const t of tests)
          texts.push(await model.applyChatTemplate(t.messages, { addGenerationPrompt: t.addGenerationPrompt }));
        const date = await model.applyChatTemplate([{ role: 'user', content: 'x' }], {
          chatTemplate: "{{ strftime_now('%b') }}",
        });
        const chat = model.chat({ system: 'Be brief.' });
        const turn1 = await chat.send(first, { maxNewTokens });
        const turn2 = await chat.send(second, { maxNewTokens });
        model.dispose();
        const ids = (t) => Array.from(t.outputIds);
        return {
          texts,
          date,
          turns: [turn1, turn2].map((t) => ({ ids: ids(t), prefilled: t.prefilled, text: t.text })),
        };
      } finally {
        engine.dispose();
      }
    },
    {
      files: FILES,
      options: pageEngineOptions(),
      tests: QWEN_CASES.map((c) => ({
        messages: conversations[c.conversation],
        addGenerationPrompt: c.addGenerationPrompt,
      })),
      first: conversation.first,
      second: conversation.second,
      maxNewTokens: json('conversation.json').maxNewTokens,
    },
  );
  expect(QWEN_CASES).toHaveLength(8); // four conversations, with and without the generation prompt
  expect(report.texts).toEqual(QWEN_CASES.map((c) => c.text));
  expect(report.date).toMatch(/^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$/); // the C locale's, as Python's
  const [t1, t2] = conversation.turns;
  expect(report.turns.map((t) => t.ids)).toEqual([
    [...t1.inputIds, ...t1.newIds],
    [...t2.inputIds, ...t2.newIds],
  ]);
  expect(report.turns.map((t) => t.text)).toEqual([t1.reply, t2.reply]);
  expect(report.turns[1].prefilled).toBe(t2.inputIds.length - (t1.inputIds.length + t1.newIds.length - 1));
  expect(workers.some((w) => w.endsWith('/dist/mha-model-tokenizer.js'))).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);
