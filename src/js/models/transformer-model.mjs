// A model loaded into the engine (models/load.mjs makes it): run() reads the
// input (text through the checkpoint's tokenizer, or ids), checks it against
// the model's sizes, and runs it in the model build's engine.
import { describe, rejectUnknown } from '../checks.mjs';
import { CALLS } from '../protocol.mjs';
import { CALL, DETACH, EngineResource } from '../resource.mjs';
import { beamSearch, generationSettings, greedySearch, seededRandom } from './generation.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';

const RUN_OPTIONS = new Set(['returnAttention', 'returnHiddenStates', 'returnLogits', 'returnQueryKey']);
// An encoder-decoder's run also takes a head mask; its input, the decoder's ids.
const SEQ2SEQ_RUN_OPTIONS = new Set([...RUN_OPTIONS, 'headMask']);
const SEQ2SEQ_KEYS = new Set(['text', 'inputIds', 'decoderInputIds']);
const COMMON_GENERATE_OPTIONS = [
  'maxNewTokens',
  'maxLength',
  'minNewTokens',
  'noRepeatNgramSize',
  'repetitionPenalty',
  'returnAttention',
  'returnHiddenStates',
  'headMask',
  'onToken',
  'signal',
];
// An encoder-decoder's search: greedy or beams; a decoder's: greedy or sampled (seeded).
const SEQ2SEQ_GENERATE_OPTIONS = new Set([
  ...COMMON_GENERATE_OPTIONS,
  'numBeams',
  'numReturnSequences',
  'lengthPenalty',
  'earlyStopping',
]);
const DECODER_GENERATE_OPTIONS = new Set([
  ...COMMON_GENERATE_OPTIONS,
  'doSample',
  'temperature',
  'topK',
  'topP',
  'seed',
]);
const INPUT_KEYS = new Set(['text', 'textPair', 'inputIds', 'tokenTypeIds']);
// A decoder's calls with state take one text or ids (no pair, no token types).
const STEP_KEYS = new Set(['inputIds']);

function ids(value, name, length) {
  if (!(value instanceof Int32Array) && !Array.isArray(value))
    throw new ArgumentTypeError(`${name}: expected an Int32Array or an array of integers, got ${describe(value)}`);
  if (length !== undefined && value.length !== length)
    throw new ArgumentRangeError(`${name}: expected ${length} ids (one per token of inputIds), got ${value.length}`);
  const out = new Int32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    if (!Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1)
      throw new ArgumentRangeError(`${name}[${i}]: expected a non-negative integer id, got ${describe(v)}`);
    out[i] = v;
  }
  return out;
}

export class TransformerModel extends EngineResource {
  #tokenizer;
  #architecture;
  #specialIds;
  #past = 0;
  #generation;
  #queue = Promise.resolve(); // an encoder-decoder's calls, one whole call after another

  constructor(call, id, config, tokenizer, onDispose) {
    super(call, id, 'model', CALLS.disposeModel, onDispose);
    this.#tokenizer = tokenizer;
    this.#architecture = config.architecture;
    // generation_config.json's object (else config.json's), and its file's name for messages.
    this.#generation = config.generation;
    /** { modelType, numLayers, numHeads, hiddenSize, vocabSize, maxPositions, kind, causal, maxLength (the longest input, in tokens) }. */
    this.config = config.public;
    /** The tokenizer's special tokens, [{ id, token }] by id ([] without a tokenizer). */
    this.specialTokens = tokenizer?.specialTokens ?? Object.freeze([]);
    this.#specialIds = new Set(this.specialTokens.map((t) => t.id));
    Object.freeze(this);
  }

  /**
   * Runs the model on one sequence: a string, { text, textPair } or
   * { inputIds, tokenTypeIds? }. Resolves to { inputIds, tokens, special,
   * lastHiddenState, attention?, attentions?, hiddenStates?, logits?,
   * query?, key?, queryKeyScale? } (see index.d.ts).
   */
  async run(input, options) {
    if (this.config.kind === 'encoder-decoder') return this.#runSeq2Seq(input, options);
    let read;
    const result = await this[CALL](CALLS.modelRun, async () => {
      const {
        returnAttention = true,
        returnHiddenStates = false,
        returnLogits = false,
        returnQueryKey = false,
        headMask,
      } = checkRunOptions(options, 'run', this.config);
      read = await this.#read(input, 'run', true, 0);
      return [read.inputIds, read.typeIds, returnAttention, returnHiddenStates, returnLogits, headMask, returnQueryKey];
    });
    return this.#result(read, result);
  }

  /**
   * A decoder's first call with state: the sequence (a string or
   * { inputIds }) through every layer, each layer's keys and values kept for
   * the steps after it (what came before is forgotten). Resolves as run()
   * does, with past: 0.
   */
  async prefill(input, options) {
    return this.#stateful(CALLS.modelPrefill, input, options, 'prefill');
  }

  /**
   * A decoder's next tokens (a string or { inputIds }) after the `past`
   * positions it has seen: only they are computed, each attending to the
   * past and to itself. Resolves to run()'s result for them, attention
   * [numLayers, numHeads, L, past + L], with `past` the positions before
   * them; bit for bit the rows of run() over the whole sequence.
   */
  async step(input, options) {
    return this.#stateful(CALLS.modelStep, input, options, 'step');
  }

  /** The readable pieces of token ids (as results' tokens), ids as strings without a tokenizer. */
  pieces(ids) {
    return this.#pieces(ids);
  }

  /**
   * Token ids as text through the checkpoint's tokenizer (skipSpecialTokens:
   * default true); null without a tokenizer. An id outside the vocabulary is
   * a RangeError naming it.
   */
  async decode(ids, { skipSpecialTokens = true } = {}) {
    if (!this.#tokenizer) return null;
    return this.#tokenizer.decode(ids, { skipSpecialTokens });
  }

  /** Frees it in the engine's memory, and stops its tokenizer. Idempotent; later calls reject. */
  dispose() {
    super.dispose();
    this.#tokenizer?.dispose();
  }

  [DETACH]() {
    super[DETACH]();
    this.#tokenizer?.dispose();
  }

  /** Forgets what a decoder has seen (past becomes 0). */
  async reset() {
    await this.#exclusive(() => this[CALL](CALLS.modelReset));
    this.#past = 0;
  }

  /** The positions a decoder has seen through prefill() and step() (0 for an encoder). */
  get past() {
    return this.#past;
  }

  /**
   * An encoder-decoder's generation (a translation): the input (a string,
   * { text } or { inputIds }) encoded once, then the decoder's tokens one at
   * a time, greedy or by beam search as transformers' generate() with the
   * checkpoint's generation_config.json (see index.d.ts). Resolves to {
   * outputIds, text, tokens (the output's), score, candidates, inputIds,
   * inputTokens, … } with the
   * attention of run({ inputIds, decoderInputIds: outputIds without its last
   * id }). A decoder's: the prompt's ids then one new token a step through
   * the KV cache, greedy or sampled; outputIds is the prompt and the new
   * ids, text the new text only, attention that of run() over outputIds
   * without its last id.
   */
  async generate(input, options) {
    if (this.config.kind === 'decoder') return this.#generateDecoder(input, options);
    if (this.config.kind !== 'encoder-decoder')
      throw new ArgumentTypeError(
        `generate: a ${this.config.modelType} is an ${this.config.kind}; generate() is a decoder's or an ` +
          "encoder-decoder's (an encoder's predictions are its masked-LM head's: run() with returnLogits)",
      );
    const opts = checkGenerateOptions(options, this.config, SEQ2SEQ_GENERATE_OPTIONS);
    const settings = generationSettings(this.#generation.json, this.#generation.file, opts, this.config.vocabSize, {
      maxPositions: this.config.maxPositions,
    });
    if (settings.maxLength > this.config.maxLength)
      throw new ArgumentRangeError(
        `maxLength: ${settings.maxLength} tokens, more than the ${this.config.maxLength} positions this model has`,
      );
    return this.#exclusive(async () => {
      const read = await this.#readSeq2Seq(input, 'generate');
      const masks = opts.headMask;
      // Encoded once: with the attention and hidden states the result returns (they cost the encoder nothing
      // more), its keys and values read by every step and by the teacher-forced decode at the end.
      const wantAttention = opts.returnAttention !== false;
      const wantHidden = opts.returnHiddenStates === true;
      const encoded = await this[CALL](CALLS.modelEncode, () => [
        read.inputIds,
        wantAttention,
        wantHidden,
        masks.encoder,
      ]);
      const vocab = this.config.vocabSize;
      const B = settings.numBeams;
      await this[CALL](CALLS.modelBegin, () => [B, settings.maxLength]);
      // Each step's attention rows are kept (without hidden states, they are all the result needs): the rows of
      // the chosen ids are then the teacher-forced run's, bit for bit, with no pass after the search.
      const collect = wantAttention && !wantHidden;
      const steps = [];
      const decode = async (ids) => {
        const r = await this[CALL](CALLS.modelDecode, () => [
          Int32Array.from(ids),
          B,
          collect,
          false,
          true,
          masks.decoder,
          masks.cross,
        ]);
        if (collect) steps.push(r);
        return r.logits;
      };
      const hooks = { onToken: opts.onToken && this.#tokenReporter(opts.onToken), signal: opts.signal };
      const found =
        B === 1
          ? await greedySearch(decode, settings, hooks)
          : await beamSearch(
              decode,
              (parents) => this[CALL](CALLS.modelReorder, () => [Int32Array.from(parents)]),
              settings,
              vocab,
              hooks,
            );
      const candidates = found.candidates ?? [{ outputIds: found.outputIds, score: found.score }];
      for (const c of candidates) {
        c.text = await this.#decodeText(c.outputIds);
        c.tokens = this.#pieces(c.outputIds);
      }
      // tokens are the output's (as text is); the input's are inputTokens, as its ids are inputIds.
      const out = {
        inputIds: read.inputIds,
        inputTokens: read.tokens,
        inputSpecial: read.special,
        outputIds: found.outputIds,
        text: candidates[0].text,
        tokens: candidates[0].tokens,
      };
      out.score = found.score;
      out.candidates = candidates;
      if (found.stepScores) out.stepScores = Float64Array.from(found.stepScores);
      // The attention of every token fed back: its rows of the steps, or a teacher-forced run over outputIds
      // but its last (for the hidden states).
      if (collect) {
        const fed = found.outputIds.subarray(0, found.outputIds.length - 1);
        Object.assign(out, this.#assemble(read, encoded, fed, steps, found.origins ?? fed.map(() => 0)));
      } else if (wantAttention || wantHidden) {
        const fed = found.outputIds.subarray(0, found.outputIds.length - 1);
        const forced = await this.#forward(
          read,
          fed,
          { returnAttention: wantAttention, returnHiddenStates: wantHidden, returnLogits: false, masks },
          encoded,
        );
        Object.assign(out, forced);
      }
      return out;
    });
  }

  async #generateDecoder(input, options) {
    const opts = checkGenerateOptions(options, this.config, DECODER_GENERATE_OPTIONS);
    return this.#exclusive(async () => {
      const source = input && typeof input === 'object' && 'text' in input ? input.text : input;
      if (input && typeof input === 'object' && 'text' in input)
        rejectUnknown(input, new Set(['text']), 'generate input');
      const read = await this.#read(source, 'generate', false, 0);
      const prompt = read.inputIds;
      const settings = generationSettings(this.#generation.json, this.#generation.file, opts, this.config.vocabSize, {
        promptLength: prompt.length,
        encoderDecoder: false,
        maxPositions: this.config.maxPositions,
      });
      if (settings.maxLength > this.config.maxLength)
        throw new ArgumentRangeError(
          `maxLength: ${settings.maxLength} tokens (the prompt's ${prompt.length} and the new ones), more than the ` +
            `${this.config.maxLength} positions this model has`,
        );
      const mask = opts.headMask;
      let first = true;
      // The prompt through every layer once (its keys and values kept), then one new token a step.
      const step = async (ids) => {
        const method = first ? CALLS.modelPrefill : CALLS.modelStep;
        first = false;
        const r = await this[CALL](method, () => [Int32Array.from(ids), false, false, 'last', mask]);
        return r.logits;
      };
      const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
      let found;
      try {
        found = await greedySearch(step, settings, {
          prompt,
          random: seededRandom(seed),
          onToken: opts.onToken && this.#tokenReporter(opts.onToken),
          signal: opts.signal,
        });
      } finally {
        // What the search left in the caches is the search's: the model's state is empty again.
        await this[CALL](CALLS.modelReset);
        this.#past = 0;
      }
      const out = {
        inputIds: prompt,
        inputTokens: read.tokens,
        outputIds: found.outputIds,
        text: await this.#decodeText(found.outputIds.subarray(prompt.length)),
        tokens: this.#pieces(found.outputIds),
        score: found.score,
        stepScores: Float64Array.from(found.stepScores),
      };
      if (settings.doSample) out.seed = seed;
      if (opts.returnAttention !== false || opts.returnHiddenStates) {
        const fed = found.outputIds.subarray(0, found.outputIds.length - 1);
        const r = await this[CALL](CALLS.modelRun, () => [
          fed,
          null,
          opts.returnAttention !== false,
          opts.returnHiddenStates === true,
          false,
          mask,
        ]);
        const fedRead = { inputIds: fed, typeIds: null, tokens: this.#pieces(fed) };
        const { attention, attentions, hiddenStates } = this.#result(fedRead, r);
        Object.assign(out, attention && { attention, attentions }, hiddenStates && { hiddenStates });
      }
      return out;
    });
  }

  async #stateful(method, input, options, what) {
    if (this.config.kind !== 'decoder')
      throw new ArgumentTypeError(
        `${what}: a ${this.config.modelType} is an ${this.config.kind}, with no state between calls; ` +
          "prefill and step are a decoder's (use run)",
      );
    // One at a time, and after a generate() still running: they share the caches.
    return this.#exclusive(async () => {
      let read;
      const result = await this[CALL](method, async () => {
        const {
          returnAttention = true,
          returnHiddenStates = false,
          returnLogits = false,
          headMask,
        } = checkRunOptions(options, what, this.config);
        read = await this.#read(input, what, false, what === 'step' ? this.#past : 0);
        return [read.inputIds, returnAttention, returnHiddenStates, returnLogits, headMask];
      });
      this.#past = result.past + read.inputIds.length;
      return this.#result(read, result);
    });
  }

  // One whole call with state at a time: an encoder-decoder's engine calls
  // (encode, begin, decode …), a decoder's prefill, step, reset and
  // generate, are not interleaved with another's.
  #exclusive(task) {
    const result = this.#queue.then(task);
    this.#queue = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  async #runSeq2Seq(input, options) {
    const opts = checkSeq2SeqRunOptions(options, this.config);
    return this.#exclusive(async () => {
      const read = await this.#readSeq2Seq(input, 'run');
      const decoderIds = read.decoderInputIds ?? Int32Array.of(this.#decoderStart());
      delete read.decoderInputIds;
      return { ...read, ...(await this.#forward(read, decoderIds, { ...opts, masks: opts.headMask })) };
    });
  }

  // The teacher-forced forward: the encoder over read.inputIds, then the decoder over decoderIds at once.
  // A teacher-forced run's result from a search's steps: step t's row of beam origins[t] is position t's
  // (each step's results: lastHiddenState [B, D], attention [Ld, B, H, 1, t + 1], crossAttention
  // [Ld, H, B, S]).
  #assemble(read, encoded, fed, steps, origins) {
    const c = this.config;
    const [Ld, H, D] = [c.decoderLayers, c.decoderHeads, c.hiddenSize];
    const S = read.inputIds.length;
    const T = fed.length;
    const self = new Float32Array(Ld * H * T * T);
    const cross = new Float32Array(Ld * H * T * S);
    const last = new Float32Array(T * D);
    for (let t = 0; t < T; t++) {
      const step = steps[t];
      const b = origins[t];
      const B = step.attentionShape[1];
      last.set(step.lastHiddenState.subarray(b * D, (b + 1) * D), t * D);
      for (let l = 0; l < Ld; l++)
        for (let h = 0; h < H; h++) {
          const from = ((l * B + b) * H + h) * (t + 1);
          self.set(step.attention.subarray(from, from + t + 1), ((l * H + h) * T + t) * T);
          const crossFrom = ((l * H + h) * B + b) * S;
          cross.set(step.crossAttention.subarray(crossFrom, crossFrom + S), ((l * H + h) * T + t) * S);
        }
    }
    return {
      decoderInputIds: Int32Array.from(fed),
      decoderTokens: this.#pieces(fed),
      encoderLastHiddenState: encoded.lastHiddenState,
      lastHiddenState: last,
      encoderAttention: encoded.attention,
      decoderAttention: self,
      crossAttention: cross,
      attentions: {
        encoder: { data: encoded.attention, shape: [c.numLayers, c.numHeads, S, S] },
        decoder: { data: self, shape: [Ld, H, T, T] },
        cross: { data: cross, shape: [Ld, H, T, S] },
      },
    };
  }

  // `encoded`: the encoder's result for read.inputIds when the model holds it already (generate() encoded
  // once, with what this asks of it), else the encoder runs first.
  async #forward(
    read,
    decoderIds,
    { returnAttention = true, returnHiddenStates = false, returnLogits = false, masks },
    encoded,
  ) {
    const T = decoderIds.length;
    if (T === 0)
      throw new ArgumentRangeError('input.decoderInputIds: no ids (the decoder starts from decoder_start_token_id)');
    if (T > this.config.maxLength)
      throw new ArgumentRangeError(
        `input.decoderInputIds: ${T} ids, more than the ${this.config.maxLength} positions this model has`,
      );
    encoded ??= await this[CALL](CALLS.modelEncode, () => [
      read.inputIds,
      returnAttention,
      returnHiddenStates,
      masks.encoder,
    ]);
    await this[CALL](CALLS.modelBegin, () => [1, T]);
    const decoded = await this[CALL](CALLS.modelDecode, () => [
      Int32Array.from(decoderIds),
      1,
      returnAttention,
      returnHiddenStates,
      returnLogits,
      masks.decoder,
      masks.cross,
    ]);
    const c = this.config;
    const S = read.inputIds.length;
    const out = {
      decoderInputIds: Int32Array.from(decoderIds),
      decoderTokens: this.#pieces(decoderIds),
      encoderLastHiddenState: encoded.lastHiddenState,
      lastHiddenState: decoded.lastHiddenState,
    };
    if (returnAttention) {
      // The decoder's self-attention comes as [layers, beams = 1, heads, T, T]: the same floats.
      out.encoderAttention = encoded.attention;
      out.decoderAttention = decoded.attention;
      out.crossAttention = decoded.crossAttention;
      out.attentions = {
        encoder: { data: encoded.attention, shape: [c.numLayers, c.numHeads, S, S] },
        decoder: { data: decoded.attention, shape: [c.decoderLayers, c.decoderHeads, T, T] },
        cross: { data: decoded.crossAttention, shape: [c.decoderLayers, c.decoderHeads, T, S] },
      };
    }
    if (returnHiddenStates) {
      out.encoderHiddenStates = encoded.hiddenStates;
      out.decoderHiddenStates = decoded.hiddenStates;
    }
    if (returnLogits) out.logits = decoded.logits;
    return out;
  }

  // { inputIds, tokens, special, decoderInputIds? } of an encoder-decoder's input: a string, { text } or
  // { inputIds }, with decoderInputIds (the decoder's, decoder_start_token_id first) for run().
  async #readSeq2Seq(input, what) {
    let source = input;
    let decoderInputIds;
    if (input && typeof input === 'object' && !Array.isArray(input) && !(input instanceof Int32Array)) {
      rejectUnknown(input, SEQ2SEQ_KEYS, `${what} input`);
      if ('decoderInputIds' in input) {
        if (what === 'generate')
          throw new ArgumentTypeError('input.decoderInputIds: generate() decides them; give them to run()');
        decoderInputIds = ids(input.decoderInputIds, 'input.decoderInputIds');
        const bad = decoderInputIds.findIndex((v) => v >= this.config.vocabSize);
        if (bad >= 0)
          throw new ArgumentRangeError(
            `input.decoderInputIds[${bad}]: expected an id below the vocabulary size ${this.config.vocabSize}, got ${decoderInputIds[bad]}`,
          );
      }
      if ('text' in input && 'inputIds' in input)
        throw new ArgumentTypeError('input: give text or inputIds, not both (which would the model run?)');
      if ('text' in input && typeof input.text !== 'string')
        throw new ArgumentTypeError(`input.text: expected a string, got ${describe(input.text)}`);
      source = 'text' in input ? input.text : { inputIds: input.inputIds };
    }
    const read = await this.#read(source, what, false, 0);
    const special = Uint8Array.from(read.inputIds, (id) => (this.#specialIds.has(id) ? 1 : 0));
    return { inputIds: read.inputIds, tokens: read.tokens, special, ...(decoderInputIds && { decoderInputIds }) };
  }

  #decoderStart() {
    return generationSettings(this.#generation.json, this.#generation.file, {}, this.config.vocabSize)
      .decoderStartTokenId;
  }

  #pieces(ids) {
    return this.#tokenizer ? this.#tokenizer.pieces(ids) : Array.from(ids, String);
  }

  async #decodeText(ids) {
    if (!this.#tokenizer?.decode) return null;
    return this.#tokenizer.decode(ids, { skipSpecialTokens: true });
  }

  // onToken's calls, in order, with the text so far.
  #tokenReporter(onToken) {
    return ({ outputIds, id, beams }) => {
      const report = { outputIds, tokens: this.#pieces(outputIds) };
      if (id !== undefined) report.id = id;
      if (beams) report.beams = beams;
      onToken(report);
    };
  }

  // A call's result: its tokens, which of them are special (1) by the
  // tokenizer's list, the engine's arrays, and the attention by group
  // (transformers' names: encoder, decoder, cross) with its shape.
  #result(read, { attentionShape, ...result }) {
    const special = Uint8Array.from(read.inputIds, (id) => (this.#specialIds.has(id) ? 1 : 0));
    const out = { inputIds: read.inputIds, tokens: read.tokens, special, ...result };
    if (result.attention) {
      const [group] = this.#architecture.attentionGroups;
      out.attentions = { [group]: { data: result.attention, shape: attentionShape } };
    }
    return out;
  }

  // { inputIds, typeIds, tokens } of an input of `what` (run, prefill, step):
  // text through the tokenizer (a text pair and token types only when
  // `pairs`), or ids; L within the positions left after `past`.
  async #read(input, what, pairs, past) {
    let inputIds;
    let typeIds = null;
    const keys = pairs ? INPUT_KEYS : STEP_KEYS;
    if (input && typeof input === 'object' && 'text' in input && 'inputIds' in input)
      throw new ArgumentTypeError('input: give text or inputIds, not both (which would the model run?)');
    if (input && typeof input === 'object' && 'inputIds' in input && 'textPair' in input)
      throw new ArgumentTypeError('input.textPair: a second text goes with text, not with inputIds');
    if (typeof input === 'string' || (pairs && input && typeof input === 'object' && 'text' in input)) {
      const [text, textPair] = typeof input === 'string' ? [input, undefined] : [input.text, input.textPair];
      if (typeof input !== 'string') rejectUnknown(input, keys, `${what} input`);
      if (typeof text !== 'string') throw new ArgumentTypeError(`input.text: expected a string, got ${describe(text)}`);
      if (textPair !== undefined && typeof textPair !== 'string')
        throw new ArgumentTypeError(`input.textPair: expected a string, got ${describe(textPair)}`);
      if (!this.#tokenizer)
        throw new ArgumentTypeError(
          'input: this model folder has no tokenizer (tokenizer.json, vocab.txt, or source.spm with vocab.json), so it ' +
            'cannot read text; pass { inputIds }',
        );
      // A step continues a text: no [CLS]/<s> of a new sequence in the middle of it.
      const encoding = await this.#tokenizer.encode(text, textPair, { addSpecialTokens: what !== 'step' });
      // The tokenizer is the checkpoint's, untrusted: its ids must be the model's (an added token of id
      // 2^32 + 5 or 5.5 would otherwise run as row 5).
      const bad = encoding.ids.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= this.config.vocabSize);
      if (bad >= 0)
        throw new Error(
          `${this.#tokenizer.file}: the tokenizer gave ${typeof encoding.ids[bad] === 'number' ? `id ${encoding.ids[bad]}` : `no id (${describe(encoding.ids[bad])}) to a piece`} for this text, not a token of the model ` +
            `(0 to ${this.config.vocabSize - 1}, config.json's vocab_size)`,
        );
      inputIds = Int32Array.from(encoding.ids);
      if (encoding.typeIds && this.#architecture.tokenTypes) typeIds = Int32Array.from(encoding.typeIds);
    } else if (input && typeof input === 'object' && 'inputIds' in input) {
      rejectUnknown(input, keys, `${what} input`);
      inputIds = ids(input.inputIds, 'input.inputIds');
      if (input.tokenTypeIds !== undefined) {
        // transformers' GPT-2 would add wte(token_type_ids): refused rather than ignored.
        if (!this.#architecture.tokenTypeEmbeddings)
          throw new ArgumentTypeError(
            `input.tokenTypeIds: a ${this.config.modelType} has no token type embeddings; leave tokenTypeIds out`,
          );
        typeIds = ids(input.tokenTypeIds, 'input.tokenTypeIds', inputIds.length);
      }
    } else {
      throw new ArgumentTypeError(
        pairs
          ? `input: expected a string, { text, textPair } or { inputIds, tokenTypeIds }, got ${describe(input)}`
          : `input: expected a string or { inputIds }, got ${describe(input)}`,
      );
    }
    const max = this.config.maxLength - past;
    if (inputIds.length === 0)
      throw new ArgumentRangeError('input: no tokens (an empty text gives none with this tokenizer)');
    if (inputIds.length > max)
      throw new ArgumentRangeError(
        past
          ? `input: ${inputIds.length} tokens, more than the ${max} positions left after the ${past} the model has seen`
          : `input: ${inputIds.length} tokens, more than the ${max} this model has positions for`,
      );
    const vocab = this.config.vocabSize;
    const bad = inputIds.findIndex((v) => v >= vocab);
    if (bad >= 0)
      throw new ArgumentRangeError(
        `input.inputIds[${bad}]: expected an id below the vocabulary size ${vocab}, got ${inputIds[bad]}`,
      );
    const tokens = this.#tokenizer ? this.#tokenizer.pieces(inputIds) : Array.from(inputIds, String);
    return { inputIds, typeIds, tokens };
  }
}

// run(), prefill() and step()'s options, the head mask as the engine takes it ([numLayers × numHeads] or null).
function checkRunOptions(options, what, config) {
  if (options === undefined) return { headMask: null };
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      `${what} options: expected { returnAttention, returnHiddenStates, returnLogits, ` +
        `${what === 'run' ? 'returnQueryKey, ' : ''}headMask }, got ${describe(options)}`,
    );
  rejectUnknown(options, new Set([...RUN_OPTIONS, 'headMask']), what);
  checkBooleans(options);
  // A step's keys would be its new tokens' alone (the earlier ones are in the cache): run() returns them all.
  if (what !== 'run' && options.returnQueryKey)
    throw new ArgumentTypeError(
      `returnQueryKey: ${what}() returns no queries and keys; run() over the whole sequence returns every ` +
        "position's (model.run({ inputIds }, { returnQueryKey: true }))",
    );
  return { ...options, headMask: checkLayerMask(options.headMask, config) };
}

// The run options that are booleans, each a TypeError naming it otherwise.
function checkBooleans(options) {
  for (const name of RUN_OPTIONS)
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new ArgumentTypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
}

// One head mask: [layers][heads] of 1 (keep) or 0 (switch off), as a Uint8Array for the engine.
function maskRows(rows, layers, heads, name) {
  if (!Array.isArray(rows) || rows.length !== layers)
    throw new ArgumentRangeError(`${name}: expected ${layers} layers of ${heads} heads, got ${describe(rows)}`);
  const flat = new Uint8Array(layers * heads);
  rows.forEach((row, l) => {
    if (!Array.isArray(row) && !ArrayBuffer.isView(row))
      throw new ArgumentTypeError(`${name}[${l}]: expected an array of ${heads} values 0 or 1, got ${describe(row)}`);
    if (row.length !== heads)
      throw new ArgumentRangeError(`${name}[${l}]: expected ${heads} values (one per head), got ${row.length}`);
    for (let h = 0; h < heads; h++) {
      const v = row[h];
      if (v !== 0 && v !== 1 && v !== true && v !== false)
        throw new ArgumentRangeError(`${name}[${l}][${h}]: expected 1 (keep) or 0 (switch off), got ${describe(v)}`);
      flat[l * heads + h] = v === 1 || v === true ? 1 : 0;
    }
  });
  return flat;
}

// An encoder-decoder's head mask: { encoder?, decoder?, cross? }, each [layers][heads] (null: every head kept).
function checkHeadMask(mask, config) {
  const none = { encoder: null, decoder: null, cross: null };
  if (mask === undefined) return none;
  if (!mask || typeof mask !== 'object' || Array.isArray(mask))
    throw new ArgumentTypeError(
      `headMask: expected { encoder, decoder, cross } of [layers][heads] 0/1 arrays, got ${describe(mask)}`,
    );
  rejectUnknown(mask, new Set(['encoder', 'decoder', 'cross']), 'headMask');
  const shape = {
    encoder: [config.numLayers, config.numHeads],
    decoder: [config.decoderLayers, config.decoderHeads],
    cross: [config.decoderLayers, config.decoderHeads],
  };
  const out = { ...none };
  for (const [group, [layers, heads]] of Object.entries(shape))
    if (mask[group] !== undefined) out[group] = maskRows(mask[group], layers, heads, `headMask.${group}`);
  return out;
}

// An encoder's or a decoder's head mask: [numLayers][numHeads] (null: every head kept).
function checkLayerMask(mask, config) {
  return mask === undefined ? null : maskRows(mask, config.numLayers, config.numHeads, 'headMask');
}

function checkSeq2SeqRunOptions(options, config) {
  if (options === undefined) return { headMask: checkHeadMask(undefined, config) };
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      `run options: expected { returnAttention, returnHiddenStates, returnLogits, headMask }, got ${describe(options)}`,
    );
  rejectUnknown(options, SEQ2SEQ_RUN_OPTIONS, 'run');
  checkBooleans(options);
  if (options.returnQueryKey)
    throw new ArgumentTypeError(
      `returnQueryKey: a ${config.modelType} is an encoder-decoder, whose queries and keys run() does not return; ` +
        "run() returns them for an encoder's or a decoder's layers (model.config.kind 'encoder' or 'decoder')",
    );
  return { ...options, headMask: checkHeadMask(options.headMask, config) };
}

function checkGenerateOptions(options, config, allowed) {
  const mask = (m) => (config.kind === 'decoder' ? checkLayerMask(m, config) : checkHeadMask(m, config));
  if (options === undefined) return { headMask: mask(undefined) };
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      `generate options: expected an object such as { maxNewTokens, numBeams }, got ${describe(options)}`,
    );
  if (options.returnQueryKey !== undefined)
    throw new ArgumentTypeError(
      config.kind === 'decoder'
        ? 'returnQueryKey: generate() returns no queries and keys; run() over its outputIds returns them ' +
            '(model.run({ inputIds: result.outputIds }, { returnQueryKey: true }))'
        : `returnQueryKey: generate() returns no queries and keys (nor does a ${config.modelType}'s run(): ` +
            "an encoder-decoder's are not returned)",
    );
  rejectUnknown(options, allowed, 'generate');
  const whole = (name, least, most) => {
    const v = options[name];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v))
      throw new ArgumentTypeError(`${name}: expected an integer, got ${describe(v)}`);
    if (v < least || v > most) throw new ArgumentRangeError(`${name}: expected ${least} to ${most}, got ${v}`);
  };
  whole('maxNewTokens', 1, config.maxLength - 1);
  whole('maxLength', 2, config.maxLength);
  whole('numBeams', 1, 64);
  whole('numReturnSequences', 1, 64);
  whole('noRepeatNgramSize', 0, config.maxLength);
  whole('minNewTokens', 0, config.maxLength);
  if (options.maxNewTokens !== undefined && options.maxLength !== undefined)
    throw new ArgumentTypeError('maxNewTokens, maxLength: give one of them (which would bound the output?)');
  if (
    options.lengthPenalty !== undefined &&
    (typeof options.lengthPenalty !== 'number' || !Number.isFinite(options.lengthPenalty))
  )
    throw new ArgumentTypeError(`lengthPenalty: expected a finite number, got ${describe(options.lengthPenalty)}`);
  for (const name of ['temperature', 'repetitionPenalty']) {
    const v = options[name];
    if (v !== undefined && (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)))
      throw new ArgumentRangeError(`${name}: expected a finite number > 0, got ${describe(v)}`);
  }
  whole('topK', 0, config.vocabSize);
  if (options.topP !== undefined && (typeof options.topP !== 'number' || !(options.topP > 0 && options.topP <= 1)))
    throw new ArgumentRangeError(`topP: expected a number in (0, 1], got ${describe(options.topP)}`);
  if (options.doSample !== undefined && typeof options.doSample !== 'boolean')
    throw new ArgumentTypeError(`doSample: expected a boolean, got ${describe(options.doSample)}`);
  if (options.seed !== undefined && (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 2 ** 32 - 1))
    throw new ArgumentRangeError(`seed: expected an integer from 0 to 2^32 - 1, got ${describe(options.seed)}`);
  if (options.earlyStopping !== undefined && ![true, false, 'never'].includes(options.earlyStopping))
    throw new ArgumentTypeError(
      `earlyStopping: expected true, false or 'never', got ${describe(options.earlyStopping)}`,
    );
  for (const name of ['returnAttention', 'returnHiddenStates'])
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new ArgumentTypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
  if (options.onToken !== undefined && typeof options.onToken !== 'function')
    throw new ArgumentTypeError(
      `onToken: expected a function ({ outputIds, tokens }) => void, got ${describe(options.onToken)}`,
    );
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new ArgumentTypeError(`signal: expected an AbortSignal, got ${describe(options.signal)}`);
  options.signal?.throwIfAborted();
  return { ...options, headMask: mask(options.headMask) };
}
