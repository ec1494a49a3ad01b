// A checkpoint's tokenizer in the page, in headless Chromium: it runs in a
// Worker of its own (dist/mha-model-tokenizer.js), never on the page's
// thread. Issue 27's hostile tokenizers — the normalizer of six empty-regex
// Replace steps, the one that passed the old load checks (a Replace at a
// lookahead, doubling the text each step: in a browser a worker out of
// memory takes the tab with it), the pre-tokenizer that backtracks
// exponentially — are refused at load with an Error naming tokenizer.json;
// one that the checks accept and that runs away on a text is stopped after
// 10 s with such an Error, while a heartbeat on the page keeps ticking, and
// the model's next text runs in a fresh worker. A good model loaded before
// and after gives the same bits, and Node's.
import { createAttention } from '../../src/js/node.mjs';
import { filesOf, withJson } from '../js/helpers/checkpoints.mjs';
import { GOOD, SENTENCE } from '../js/helpers/hostile-checkpoints.mjs';
import { launchWithServer, openBlankPage } from './chromium.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const ENGINE = pageEngineOptions();
const base64 = (files) =>
  Object.fromEntries(Object.entries(files).map(([n, b]) => [n, Buffer.from(b).toString('base64')]));
const withTokenizer = (change) => base64(withJson(filesOf('bert-zh'), 'tokenizer.json', change));
const replace = (Regex, content) => ({ type: 'Replace', pattern: { Regex }, content });
const split = (Regex) => ({ type: 'Split', pattern: { Regex }, behavior: 'Isolated', invert: false });

// [what, its files, the Error's message at load]
const REFUSED = [
  [
    'six Replace steps with an empty regex',
    withTokenizer(
      (j) => void (j.normalizer = { type: 'Sequence', normalizers: Array(6).fill(replace('', 'x'.repeat(20))) }),
    ),
    /^tokenizer\.json: normalizer\.normalizers\[0\]\.pattern can match the empty string/,
  ],
  [
    'Replace steps at a lookahead, each doubling the text',
    withTokenizer(
      (j) => void (j.normalizer = { type: 'Sequence', normalizers: Array(24).fill(replace('(?=[\\s\\S])', 'x')) }),
    ),
    /^tokenizer\.json: normalizer can grow a text up to 16777216 times, more than 256/,
  ],
  [
    'a pre-tokenizer regex that backtracks exponentially',
    withTokenizer((j) => void (j.pre_tokenizer = split('([\\s\\S]|[\\s\\S]|[\\s\\S])*$x'))),
    /^tokenizer\.json: pre_tokenizer\.pattern repeats \(\[\\s\\S\]\|\[\\s\\S\]\|\[\\s\\S\]\)\*, a group that holds an alternation/,
  ],
];
// Accepted at load (the probe text has single spaces only), it backtracks polynomially on a run of spaces.
const RUNAWAY = withTokenizer((j) => {
  j.pre_tokenizer = {
    type: 'Sequence',
    pretokenizers: [split('\\s*\\s*\\s*\\s*\\s*\\s*\\u0001'), { type: 'BertPreTokenizer' }],
  };
});

let browser, url;
beforeAll(async () => {
  browser = await launchWithServer();
  ({ url } = browser);
}, 60_000);
afterAll(() => browser?.close());

test('hostile tokenizers end in Errors naming tokenizer.json, the page answers throughout, a good model after them is bit for bit', async () => {
  const { page, problems } = await openBlankPage(browser.context, url);
  const workers = [];
  page.on('worker', (worker) => workers.push(worker.url()));
  const report = await page.evaluate(
    async ({ good, refused, runaway, options, sentence }) => {
      const bytes = (files) =>
        Object.fromEntries(
          Object.entries(files).map(([n, b]) => [n, Uint8Array.from(atob(b), (c) => c.charCodeAt(0))]),
        );
      const bits = (r) => [...r.lastHiddenState, ...r.attention];
      // The page's heartbeat: the longest gap between ticks of a 20 ms interval, and between frames.
      let maxGap = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
      }, 20);
      let frames = 0;
      let drawing = true;
      const frame = () => {
        frames++;
        if (drawing) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
      const { createAttention } = await import('/src/js/model-entry.mjs');
      const engine = await createAttention(options);
      try {
        const before = await engine.loadModel(bytes(good));
        const first = bits(await before.run(sentence));
        before.dispose();
        const refusals = [];
        for (const files of refused)
          refusals.push(
            await engine.loadModel(bytes(files)).then(
              (m) => (m.dispose(), null),
              (e) => `${e.name}: ${e.message}`,
            ),
          );
        const model = await engine.loadModel(bytes(runaway));
        const started = performance.now();
        const framesBefore = frames;
        const stopped = await model.run(`a${' '.repeat(100)}b`).then(
          () => null,
          (e) => `${e.name}: ${e.message}`,
        );
        const runawayMs = performance.now() - started;
        const runawayFrames = frames - framesBefore;
        const next = Array.from((await model.run('毒蛇')).inputIds);
        model.dispose();
        const after = await engine.loadModel(bytes(good));
        const again = bits(await after.run(sentence));
        after.dispose();
        return { variant: engine.variant, refusals, stopped, runawayMs, runawayFrames, next, maxGap, first, again };
      } finally {
        clearInterval(timer);
        drawing = false;
        engine.dispose();
      }
    },
    {
      good: base64(filesOf('bert-zh')),
      refused: REFUSED.map(([, files]) => files),
      runaway: RUNAWAY,
      options: ENGINE,
      sentence: SENTENCE,
    },
  );
  expect(report.variant).toBe(ENGINE.variant);
  REFUSED.forEach(([what, , message], i) =>
    expect([what, report.refusals[i]]).toEqual([
      what,
      expect.stringMatching(new RegExp(`^Error: ${message.source.slice(1)}`)),
    ]),
  );
  expect(report.stopped).toMatch(
    /^Error: tokenizer\.json: tokenizing this text took more than 10 s, so the tokenizer was stopped/,
  );
  expect(report.runawayMs).toBeGreaterThan(9_500); // the runaway ran its 10 s …
  expect(report.runawayMs).toBeLessThan(20_000); // … and no longer
  // … while the page answered: no gap in its heartbeat past 250 ms, and frames drawn all along (60 a second).
  expect(report.maxGap).toBeLessThan(250);
  expect(report.runawayFrames).toBeGreaterThan(100);
  expect(report.next).toEqual([2, 6, 7, 3]); // [CLS] 毒 蛇 [SEP], in a fresh worker
  // The good model before and after, and Node's engine of the same build: the same bits.
  expect(report.again).toEqual(report.first);
  const engine = await createAttention(ENGINE);
  try {
    const model = await engine.loadModel(GOOD);
    const r = await model.run(SENTENCE);
    expect(report.first).toEqual([...r.lastHiddenState, ...r.attention]);
  } finally {
    engine.dispose();
  }
  // The tokenizers ran in Workers of their own script: one for each load, and one more after the runaway.
  expect(workers.filter((w) => w.endsWith('/dist/mha-model-tokenizer.js')).length).toBeGreaterThanOrEqual(4);
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);
