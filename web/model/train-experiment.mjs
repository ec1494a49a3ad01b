// The "train it yourself" experiment (issue 7): tiny Transformer taggers with
// one, two (and optionally four) heads of the same total width, trained in the
// engine on the toy grammar of corpus.mjs, several seeds each, and tested on
// sentences they never saw and on the example sentence. Pure: no DOM; the
// engine is a parameter, so Node tests and the page run the same code.
//
// The task: tag every token. 毒 gets its role (noun, verb, modifier) and every
// other token 'other', so the loss is on every token; 'other' is given away by
// the character itself, so what separates the models is the 毒, and every
// accuracy reported here counts the 毒 only.
//
// All runs share one training set and one test set; a seed changes only the
// trainer (initial weights and the order of the batches). The runs advance
// round-robin, a chunk of steps each, so every setting's curves grow side by
// side while they train.
import { tagSet, vocabulary, rules, classOf, heldOut, generateCorpus, neighbourAccuracy, MAX_LENGTH } from './corpus.mjs';

/** The training set: 2,000 generated sentences (duplicates kept: they are how often a sentence occurs). */
export const TRAIN_CORPUS = Object.freeze({ seed: 1, count: 2000 });
/** The test set is drawn from another seed, then every sentence of the training set (and repeats) is dropped. */
export const TEST_CORPUS = Object.freeze({ seed: 2, count: 600 });
/** The same width for every head count: 1 head of 16, 2 of 8, 4 of 4. */
export const D_MODEL = 16;
/** Hidden units of the optional MLP after attention. */
export const MLP_HIDDEN = 64;
export const BATCH_SIZE = 32;
/** Steps per engine call: small enough for live curves, large enough that the call overhead stays small. */
export const CHUNK_STEPS = 50;
/** Test-set accuracy (and the example's attention) every this many steps; a multiple of CHUNK_STEPS. */
export const EVAL_EVERY = 100;
export const STEP_CHOICES = Object.freeze([500, 1500, 3000]);
export const MAX_SEEDS = 10;
/**
 * The pilot's protocol (5 seeds, 3,000 steps of 32 sentences), so that the
 * page's numbers can be read next to the pilot's. At 1,500 steps the two-head
 * runs were still settling: one seed of five sat at 80 % in the page.
 */
export const DEFAULT_OPTIONS = Object.freeze({ seeds: 5, steps: 3000, fourHeads: false, mlp: false });

const DU = '毒';
const TOKEN_ID = new Map(vocabulary.map((char, id) => [char, id]));
const TAG_ID = new Map(tagSet.map((tag, id) => [tag, id]));

/** A tagged sentence of characters as the engine's ids. */
function encodeSentence({ tokens, tags }) {
  return { tokens: tokens.map((c) => TOKEN_ID.get(c)), tags: tags.map((t) => TAG_ID.get(t)) };
}

/** Positions of the 毒 in a list of characters. */
export const duPositions = (tokens) => tokens.flatMap((c, i) => (c === DU ? [i] : []));

/**
 * The experiment's data: the training set, the test set with every sentence
 * that occurs in training removed (and each test sentence once), the example
 * sentence (never generated, so never trained on), and how well one neighbour
 * alone, or both, could tag the test set's 毒 (neighbourAccuracy).
 */
export function buildData({ train = TRAIN_CORPUS, test = TEST_CORPUS } = {}) {
  const trainCorpus = generateCorpus(train);
  const seen = new Set(trainCorpus.map((s) => s.tokens.join('')));
  const testCorpus = [];
  for (const sentence of generateCorpus(test)) {
    const text = sentence.tokens.join('');
    if (seen.has(text)) continue;
    seen.add(text);
    testCorpus.push(sentence);
  }
  return {
    train: trainCorpus.map(encodeSentence),
    test: testCorpus.map(encodeSentence),
    /** Every 毒 of the test set: its slot in the engine's [count, maxLength] predictions, and its tag id. */
    testDu: testCorpus.flatMap((s, i) => duPositions(s.tokens).map((t) => ({ sentence: i, token: t, slot: i * MAX_LENGTH + t, tag: TAG_ID.get(s.tags[t]) }))),
    example: encodeSentence(heldOut),
    neighbours: neighbourAccuracy(testCorpus),
  };
}

/** The settings to compare: 1 and 2 heads (4 if asked), each also with an MLP if asked. */
export function settingsFor({ fourHeads = false, mlp = false } = {}) {
  const heads = fourHeads ? [1, 2, 4] : [1, 2];
  const mlps = mlp ? [0, MLP_HIDDEN] : [0];
  return mlps.flatMap((mlpHidden) =>
    heads.map((numHeads) =>
      Object.freeze({
        key: `h${numHeads}${mlpHidden ? '-mlp' : ''}`,
        numHeads,
        mlpHidden,
        label: `${numHeads} head${numHeads === 1 ? '' : 's'}${mlpHidden ? ' + MLP' : ''}`,
      }),
    ),
  );
}

/** Share of the test set's 毒 that the predictions get right. */
function duAccuracy(predictions, testDu) {
  let right = 0;
  for (const { slot, tag } of testDu) if (predictions[slot] === tag) right++;
  return right / testDu.length;
}

/**
 * Each head's mean weight from a 毒 onto its left and its right neighbour, over
 * the test set's 毒 that have both (not the first or last token).
 * @param {Float32Array} attention the engine's [count, numHeads, maxLength, maxLength]
 */
export function neighbourWeights(attention, numHeads, testDu, lengths) {
  const L = MAX_LENGTH;
  const inner = testDu.filter(({ sentence, token }) => token > 0 && token < lengths[sentence] - 1);
  return Array.from({ length: numHeads }, (_, h) => {
    let left = 0;
    let right = 0;
    for (const { sentence, token } of inner) {
      const row = ((sentence * numHeads + h) * L + token) * L;
      left += attention[row + token - 1];
      right += attention[row + token + 1];
    }
    return { left: left / inner.length, right: right / inner.length };
  });
}

/**
 * The model on the example sentence: the role it gives each 毒, whether that
 * is the right one, and each head's [length, length] attention.
 */
async function evaluateExample(trainer, example, numHeads) {
  const n = example.tokens.length;
  const L = MAX_LENGTH;
  const { predictions, attention } = await trainer.evaluate({ sentences: [example], returnAttention: true });
  const heads = Array.from({ length: numHeads }, (_, h) => {
    const block = new Float32Array(n * n);
    for (let q = 0; q < n; q++) block.set(attention.subarray((h * L + q) * L, (h * L + q) * L + n), q * n);
    return block;
  });
  const du = duPositions(heldOut.tokens).map((position) => ({
    position,
    want: heldOut.tags[position],
    got: tagSet[predictions[position]],
    right: predictions[position] === example.tags[position],
  }));
  return { du, allRight: du.every((d) => d.right), heads };
}

const abortError = () => new DOMException('The training run was stopped', 'AbortError');

/**
 * Trains every setting × seed and reports as it goes.
 *
 * Every run's record is updated in place and handed to onProgress after each
 * round (every run one chunk further); treat it as read-only. Per run: loss
 * (the mean batch loss of each chunk, at the chunk's last step), accuracy (the
 * test set's 毒 at step 0, every EVAL_EVERY steps and at the end), example
 * (the latest evaluation of the example sentence), and at the end
 * finalAccuracy and neighbours (neighbourWeights).
 *
 * Stopping: abort `signal`; the promise then rejects with an AbortError after
 * the engine call under way, and every trainer is freed either way.
 *
 * @param {{ createTrainer: Function }} engine
 * @param {{ settings: object[], seeds: number, steps: number, data?: object, chunkSteps?: number,
 *   evalEvery?: number, batchSize?: number, signal?: AbortSignal, onProgress?: (progress: object) => void }} options
 */
export async function runExperiment(engine, options) {
  const { settings, seeds, steps, data = buildData(), chunkSteps = CHUNK_STEPS, evalEvery = EVAL_EVERY, batchSize = BATCH_SIZE, signal, onProgress } = options;
  if (evalEvery % chunkSteps !== 0) throw new RangeError(`evalEvery (${evalEvery}) must be a multiple of chunkSteps (${chunkSteps})`);
  const check = () => {
    if (signal?.aborted) throw abortError();
  };
  const lengths = data.test.map((s) => s.tokens.length);
  const runs = settings.flatMap((setting) =>
    Array.from({ length: seeds }, (_, i) => ({ setting, seed: i + 1, step: 0, loss: [], accuracy: [], example: null, finalAccuracy: null, neighbours: null })),
  );
  const progress = { runs, steps, stepsDone: 0, totalSteps: runs.length * steps, trainMs: 0, stepsPerSecond: NaN, done: false };
  const trainers = [];
  try {
    for (const run of runs) {
      check();
      const trainer = await engine.createTrainer({
        vocabSize: vocabulary.length, numTags: tagSet.length, maxLength: MAX_LENGTH, dModel: D_MODEL,
        numHeads: run.setting.numHeads, mlpHidden: run.setting.mlpHidden, seed: run.seed,
      });
      trainers.push(trainer);
      await trainer.setData({ sentences: data.train });
    }
    const evaluate = async (run, trainer, { attention = false } = {}) => {
      const { predictions, attention: weights } = await trainer.evaluate({ sentences: data.test, returnAttention: attention });
      run.accuracy.push({ step: run.step, value: duAccuracy(predictions, data.testDu) });
      run.example = await evaluateExample(trainer, data.example, run.setting.numHeads);
      return weights;
    };
    for (const [i, run] of runs.entries()) await evaluate(run, trainers[i]);
    onProgress?.(progress);

    while (runs[0].step < steps) {
      for (const [i, run] of runs.entries()) {
        check();
        const chunk = Math.min(chunkSteps, steps - run.step);
        const start = performance.now();
        const { losses, step } = await trainers[i].train({ steps: chunk, batchSize });
        progress.trainMs += performance.now() - start;
        run.step = step;
        run.loss.push({ step, value: losses.reduce((a, b) => a + b, 0) / losses.length });
        progress.stepsDone += chunk;
        if (step === steps) {
          // The last evaluation also measures where each head looks (the test set's attention is large: only once).
          run.neighbours = neighbourWeights(await evaluate(run, trainers[i], { attention: true }), run.setting.numHeads, data.testDu, lengths);
          run.finalAccuracy = run.accuracy.at(-1).value;
        } else if (step % evalEvery === 0) await evaluate(run, trainers[i]);
      }
      progress.stepsPerSecond = progress.stepsDone / (progress.trainMs / 1000);
      onProgress?.(progress);
    }
    progress.done = true;
    return progress;
  } finally {
    for (const trainer of trainers) trainer.dispose();
  }
}

/** Mean and sample standard deviation (n − 1; NaN for fewer than two values). */
export function meanAndSd(values) {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n < 2 ? NaN : Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  return { mean, sd };
}

/**
 * Per setting, over its finished seeds: the accuracies (each seed's, and mean ±
 * SD), how many seeds got all six 毒 of the example right, and where the heads
 * look. For the heads: per seed, the head that puts most weight on the left
 * neighbour and the one that puts most on the right; "split" when they are two
 * different heads, each weighing its own side more than the other (one head
 * looks left, another right). With one head they are the same head.
 */
export function summarize(progress) {
  const settings = [...new Map(progress.runs.map((r) => [r.setting.key, r.setting])).values()];
  return settings.map((setting) => {
    const runs = progress.runs.filter((r) => r.setting.key === setting.key && r.finalAccuracy !== null);
    const accuracies = runs.map((r) => r.finalAccuracy);
    const looks = runs.map(({ neighbours }) => {
      const leftHead = neighbours.reduce((best, h, i) => (h.left > neighbours[best].left ? i : best), 0);
      const rightHead = neighbours.reduce((best, h, i) => (h.right > neighbours[best].right ? i : best), 0);
      const split = leftHead !== rightHead && neighbours[leftHead].left > neighbours[leftHead].right && neighbours[rightHead].right > neighbours[rightHead].left;
      return { left: neighbours[leftHead].left, right: neighbours[rightHead].right, split };
    });
    return {
      setting,
      seeds: runs.map((r) => r.seed),
      accuracies,
      ...meanAndSd(accuracies),
      allRight: runs.filter((r) => r.example.allRight).length,
      left: meanAndSd(looks.map((l) => l.left)).mean,
      right: meanAndSd(looks.map((l) => l.right)).mean,
      splits: looks.filter((l) => l.split).length,
    };
  });
}

/** Differences of means under half a tenth of a point (the text's precision) count as none. */
const LEVEL = 0.0005;
/** A share as "93.2 %". */
export const percent = (x) => `${(100 * x).toFixed(1)} %`;
const points = (x) => `${Math.abs(100 * x).toFixed(1)} point${Math.abs(100 * x).toFixed(1) === '1.0' ? '' : 's'}`;
const weight = (x) => x.toFixed(2);
const seedList = (s) => s.accuracies.map((a, i) => `${s.seeds[i]}: ${(100 * a).toFixed(1)}`).join(', ');

/** Accuracies as "93.2 ± 5.2 %" (mean ± sample SD) or, for one value, "93.2 %". */
export function percentMeanSd(values) {
  const { mean, sd } = meanAndSd(values);
  return values.length > 1 ? `${(100 * mean).toFixed(1)} ± ${(100 * sd).toFixed(1)} %` : percent(mean);
}

function accuracyText(s) {
  const spread = s.seeds.length > 1 ? '' : ', one seed so no spread';
  return `${s.setting.label} ${percentMeanSd(s.accuracies)}${spread} (seed ${seedList(s)})`;
}

/** "2 heads were ahead of 1 head by 6.2 points; …": b against a, and whether their seeds overlap. */
function comparisonText(a, b) {
  const gap = b.mean - a.mean;
  if (Math.abs(gap) < LEVEL) return `${b.setting.label} and ${a.setting.label} were level (${percent(b.mean)} and ${percent(a.mean)}).`;
  const [ahead, behind] = gap > 0 ? [b, a] : [a, b];
  const worstAhead = Math.min(...ahead.accuracies);
  const bestBehind = Math.max(...behind.accuracies);
  const overlap =
    worstAhead > bestBehind
      ? `every seed with ${ahead.setting.label} scored above every seed with ${behind.setting.label}`
      : `but their seeds overlap: the worst seed with ${ahead.setting.label} (${percent(worstAhead)}) was not above the best with ${behind.setting.label} (${percent(bestBehind)})`;
  return `${ahead.setting.label} ${ahead.setting.numHeads === 1 ? 'was' : 'were'} ahead of ${behind.setting.label} by ${points(gap)}; ${overlap}.`;
}

function lookText(s) {
  if (s.setting.numHeads === 1)
    return `${s.setting.label}: on average ${weight(s.left)} of its weight on a 毒's left neighbour and ${weight(s.right)} on its right one, from one softmax.`;
  return `${s.setting.label}: one head looked mostly left and another mostly right in ${s.splits} of ${s.seeds.length} seed${s.seeds.length === 1 ? '' : 's'} (the most left-looking head put ${weight(s.left)} on the left neighbour, the most right-looking ${weight(s.right)} on the right one).`;
}

/**
 * What the runs showed, in words, from the numbers only: paragraphs (strings).
 * Nothing here is fixed in advance: which setting is ahead, by how much,
 * whether the seeds overlap, whether the MLP narrows the gap, and how the claim
 * fares are all read off `summary` (summarize) and `context`.
 * @param {object[]} summary summarize()'s result
 * @param {{ steps: number, testSentences: number, testDu: number, neighbours: { left: number, right: number } }} context
 */
export function describeResults(summary, { steps, testSentences, testDu, neighbours }) {
  const done = summary.filter((s) => s.seeds.length > 0);
  const find = (numHeads, mlp) => done.find((s) => s.setting.numHeads === numHeads && (s.setting.mlpHidden > 0) === mlp);
  const plain = done.filter((s) => s.setting.mlpHidden === 0);
  const withMlp = done.filter((s) => s.setting.mlpHidden > 0);
  const [one, two, oneMlp, twoMlp] = [find(1, false), find(2, false), find(1, true), find(2, true)];
  const paragraphs = [];
  if (plain.length === 0) return paragraphs;

  paragraphs.push(
    `After ${steps.toLocaleString('en')} steps, held-out 毒 accuracy on ${testSentences} sentences never trained on (${testDu} 毒), ` +
      `mean ± sample SD over seeds: ${plain.map(accuracyText).join('; ')}.`,
  );
  if (one && plain.length > 1) paragraphs.push(plain.filter((s) => s !== one).map((s) => comparisonText(one, s)).join(' '));
  paragraphs.push(
    `The example sentence (held out of training): all six 毒 right in ${done
      .map((s) => `${s.allRight} of ${s.seeds.length} run${s.seeds.length === 1 ? '' : 's'} with ${s.setting.label}`)
      .join(', ')}.`,
  );
  paragraphs.push(`Where the heads look, measured over the test set's 毒: ${plain.map(lookText).join(' ')}`);

  if (withMlp.length) {
    let text = `With an MLP after attention: ${withMlp.map(accuracyText).join('; ')}.`;
    if (one && two && oneMlp && twoMlp) {
      const before = two.mean - one.mean;
      const after = twoMlp.mean - oneMlp.mean;
      const change = Math.abs(after) < Math.abs(before) - LEVEL ? 'narrowed' : Math.abs(after) > Math.abs(before) + LEVEL ? 'widened' : 'stayed the same';
      const signed = (x) => `${x >= 0 ? '+' : '−'}${points(x)}`;
      text += ` Two heads minus one head: ${signed(before)} without the MLP, ${signed(after)} with it: the gap ${change}.`;
    }
    paragraphs.push(text);
  }

  if (one && two) {
    // "Can do it": more 毒 right than any rule reading one neighbour could get; "not as well": behind two heads.
    const ceiling = Math.max(neighbours.left, neighbours.right);
    const worked =
      one.mean > ceiling
        ? `one head worked: ${percent(one.mean)}, more than the ${percent(ceiling)} that the better neighbour alone allows on this test set`
        : `one head did not get past what one neighbour alone allows (${percent(one.mean)} against ${percent(ceiling)})`;
    const asGood = two.mean - one.mean >= LEVEL ? `and it was ${points(two.mean - one.mean)} behind two heads` : 'and it was not behind two heads';
    paragraphs.push(`The claim “单头注意力不是不行，而是不够好” (one head can do it, just not as well), against this run: ${worked}, ${asGood}.`);
  }
  return paragraphs;
}

/**
 * The rule table as a grid, left class × right class → role (null: no
 * sentence puts a 毒 there), and how many rows and columns hold more than one
 * role: those are the contexts where one neighbour alone does not decide.
 */
export function ruleGrid() {
  const lefts = [...new Set(rules.map((r) => r.left))];
  const rights = [...new Set(rules.map((r) => r.right))];
  const cell = (left, right) => rules.find((r) => r.left === left && r.right === right) ?? null;
  const cells = lefts.map((left) => rights.map((right) => cell(left, right)));
  const roles = (list) => new Set(list.filter(Boolean).map((r) => r.role)).size;
  return {
    lefts,
    rights,
    cells,
    ambiguousLefts: cells.filter((row) => roles(row) > 1).length,
    ambiguousRights: rights.filter((_, j) => roles(cells.map((row) => row[j])) > 1).length,
    /** The characters of each class ('edge' also stands for the sentence's start and end). */
    members: Object.fromEntries([...new Set(Object.values(classOf))].map((c) => [c, vocabulary.filter((v) => classOf[v] === c)])),
  };
}
