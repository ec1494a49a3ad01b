// An encoder-decoder's calls (Marian): run(), teacher-forced (the encoder over
// the input, the decoder over decoderInputIds at once; an array of inputs, encoder-decoder-batch.mjs); generate(), the input
// encoded once, then the decoder a token at a time, greedy, sampled (seeded) or by beam search,
// its attention assembled from the steps' rows (bit for bit the
// teacher-forced run's). No state between calls: prefill, step and
// generateSteps are a decoder's.
import { checkGenerateOptions, checkSeq2SeqRunOptions, GENERATE_OPTIONS, lensPositions } from '../model-options.mjs';
import { readSeq2Seq } from '../model-input.mjs';
import { CALLS } from '../../protocol.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';
import { seededRandom } from '../generation/sampling.mjs';
import { stopStringCheck } from '../generation/stopping.mjs';
import { generationSettings } from '../generation/settings.mjs';
import { greedySearch } from '../generation/greedy.mjs';
import { beamSearch } from '../generation/beam.mjs';
import { checkBeamSteps, textDeltas, tokenReporter } from './decoder.mjs';
import { runPairs } from './encoder-decoder-batch.mjs';

const decoderStart = (inner) =>
  generationSettings(inner.generation.json, inner.generation.file, {}, inner.config.vocabSize).decoderStartTokenId;

function run(inner, input, options) {
  if (Array.isArray(input)) return runPairs(inner, input, options, decoderStart);
  const opts = checkSeq2SeqRunOptions(options, inner.config);
  return inner.exclusive(async () => {
    const read = await readSeq2Seq(inner, input, 'run', opts.truncateTo);
    const decoderIds = read.decoderInputIds ?? Int32Array.of(decoderStart(inner));
    delete read.decoderInputIds;
    return { ...read, ...(await forward(inner, read, decoderIds, { ...opts, masks: opts.headMask })) };
  });
}

// The decoder's self-attention of one beam of a decode's { data, shape: [Ld, B, H, L, Lk] } (B = 1: the same
// floats) as [Ld, H, L, Lk].
const oneBeam = ({ data, shape: [Ld, , H, L, Lk] }) => ({ data, shape: [Ld, H, L, Lk] });

function assemble(inner, read, encoded, fed, steps, origins) {
  const S = read.inputIds.length;
  const T = fed.length;
  const [Ld, , H] = steps[0].attention.shape;
  const D = steps[0].lastHiddenState.shape[1];
  const self = new Float32Array(Ld * H * T * T);
  const cross = new Float32Array(Ld * H * T * S);
  const last = new Float32Array(T * D);
  for (let t = 0; t < T; t++) {
    const step = steps[t];
    const b = origins[t];
    const B = step.attention.shape[1];
    last.set(step.lastHiddenState.data.subarray(b * D, (b + 1) * D), t * D);
    for (let l = 0; l < Ld; l++)
      for (let h = 0; h < H; h++) {
        const from = ((l * B + b) * H + h) * (t + 1);
        self.set(step.attention.data.subarray(from, from + t + 1), ((l * H + h) * T + t) * T);
        const crossFrom = ((l * H + h) * B + b) * S;
        cross.set(step.crossAttention.data.subarray(crossFrom, crossFrom + S), ((l * H + h) * T + t) * S);
      }
  }
  return {
    decoderInputIds: Int32Array.from(fed),
    decoderTokens: inner.pieces(fed),
    encoderLastHiddenState: encoded.lastHiddenState.data,
    lastHiddenState: last,
    encoderAttention: encoded.attention.data,
    decoderAttention: self,
    crossAttention: cross,
    attentions: {
      encoder: encoded.attention,
      decoder: { data: self, shape: [Ld, H, T, T] },
      cross: { data: cross, shape: [Ld, H, T, S] },
    },
  };
}

// The encoder over the input (generate: once, with the attention and hidden states the result returns). The
// model then holds this encoding: inner.encodedBy says whose it is (null: a call's own, for that call alone).
function encode(inner, inputIds, returnAttention, returnHiddenStates, headMask, returnHeadOutputs = false) {
  inner.encodedBy = null;
  return inner.send(() => ({
    call: 'encode',
    inputIds,
    returnAttention,
    returnHiddenStates,
    returnHeadOutputs,
    headMask,
  }));
}

/**
 * The analyses' teacher-forced passes (src/js/analysis/reference.mjs) over one source and decoder ids that a
 * run() has checked: (headMask) => logits [T, vocabSize]. The encoder runs again only when its head mask
 * changed or another call encoded since; a pass that switches off decoder or cross heads alone begins and
 * decodes over the encoding it holds, the same calls run() makes, so the same bits.
 */
function teacherForced(inner, inputIds, decoderIds) {
  const owner = {};
  let encodedMask;
  const ids = Int32Array.from(decoderIds);
  return (headMask) =>
    inner.exclusive(async () => {
      const masks = checkSeq2SeqRunOptions({ headMask }, inner.config).headMask;
      const key = masks.encoder ? masks.encoder.join('') : '';
      if (inner.encodedBy !== owner || key !== encodedMask) {
        await encode(inner, inputIds, false, false, masks);
        inner.encodedBy = owner;
        encodedMask = key;
      }
      await inner.call(CALLS.modelBegin, () => [1, ids.length]);
      const decoded = await inner.send(() => ({
        call: 'decode',
        inputIds: ids,
        beams: 1,
        returnAttention: false,
        returnLogits: true,
        headMask: masks,
      }));
      return decoded.logits.data;
    });
}

// `encoded`: the encoder's result for read.inputIds when the model holds it already (generate() encoded
// once, with what this asks of it), else the encoder runs first.
async function forward(
  inner,
  read,
  decoderIds,
  {
    returnAttention = true,
    returnHiddenStates = false,
    returnLogits = false,
    returnHeadOutputs = false,
    returnLayerLogits,
    masks,
  },
  encoded,
) {
  const T = decoderIds.length;
  if (T === 0)
    throw new ArgumentRangeError('input.decoderInputIds: no ids (the decoder starts from decoder_start_token_id)');
  if (T > inner.config.maxLength)
    throw new ArgumentRangeError(
      `input.decoderInputIds: ${T} ids, more than the ${inner.config.maxLength} positions this model has`,
    );
  const layerLogitPositions = lensPositions(returnLayerLogits, T, 'decoderInputIds');
  encoded ??= await encode(inner, read.inputIds, returnAttention, returnHiddenStates, masks, returnHeadOutputs);
  await inner.call(CALLS.modelBegin, () => [1, T]);
  const decoded = await inner.send(() => ({
    call: 'decode',
    inputIds: Int32Array.from(decoderIds),
    beams: 1,
    returnAttention,
    returnHiddenStates,
    returnLogits,
    returnHeadOutputs,
    layerLogitPositions,
    headMask: masks,
  }));
  const out = {
    decoderInputIds: Int32Array.from(decoderIds),
    decoderTokens: inner.pieces(decoderIds),
    encoderLastHiddenState: encoded.lastHiddenState.data,
    lastHiddenState: decoded.lastHiddenState.data,
  };
  if (returnAttention) {
    out.encoderAttention = encoded.attention.data;
    out.decoderAttention = decoded.attention.data;
    out.crossAttention = decoded.crossAttention.data;
    out.attentions = { encoder: encoded.attention, decoder: oneBeam(decoded.attention), cross: decoded.crossAttention };
  }
  if (returnHiddenStates) {
    out.encoderHiddenStates = encoded.hiddenStates.data;
    out.decoderHiddenStates = decoded.hiddenStates.data;
  }
  if (returnLogits) out.logits = decoded.logits.data;
  if (layerLogitPositions) out.layerLogits = decoded.layerLogits.data;
  // What each head writes, by group: the decoder's rows are its T tokens (one beam); the cross-attention's
  // values are the encoder's S positions through each decoder layer's cross-attention.
  if (returnHeadOutputs)
    out.headOutputs = {
      encoder: { valueNorms: encoded.valueNorms, headOutputNorms: encoded.headOutputNorms },
      decoder: { valueNorms: decoded.valueNorms, headOutputNorms: decoded.headOutputNorms },
      cross: { valueNorms: encoded.crossValueNorms, headOutputNorms: decoded.crossHeadOutputNorms },
    };
  return out;
}

// One greedy step as generate's onStep sees it: the token, the text it adds, what it was chosen from, and the
// attention of the token fed for it (decoder_start_token_id at step 1): decoder [Ld, H, 1, t + 1], cross [Ld, H, 1, S].
function publicStep(inner, { id, outputIds, score, fed }, index, textDelta, seed) {
  const token = inner.pieces([id])[0];
  const out = { step: index, id, token, textDelta, outputIds, score, logits: fed.logits };
  if (fed.attention) out.attentions = { decoder: oneBeam(fed.attention), cross: fed.crossAttention };
  if (seed !== undefined) out.seed = seed;
  return out;
}

async function generate(inner, input, options) {
  const { config } = inner;
  const opts = checkGenerateOptions(options, config, GENERATE_OPTIONS['encoder-decoder']);
  const settings = generationSettings(inner.generation.json, inner.generation.file, opts, config.vocabSize, {
    maxPositions: config.maxPositions,
  });
  if (settings.maxLength > config.maxLength)
    throw new ArgumentRangeError(
      `maxLength: ${settings.maxLength} tokens, more than the ${config.maxLength} positions this model has`,
    );
  const B = settings.numBeams;
  checkBeamSteps(opts, settings, inner.generation.file);
  if (settings.stopStrings.length && !inner.tokenizer)
    throw new ArgumentTypeError(
      `stopStrings: this ${config.modelType} has no tokenizer to decode its ids with (stop strings are text)`,
    );
  const seed = settings.doSample ? (opts.seed ?? Math.floor(Math.random() * 2 ** 32)) : undefined;
  return inner.exclusive(async () => {
    const read = await readSeq2Seq(inner, input, 'generate');
    const masks = opts.headMask;
    // Encoded once: with the attention and hidden states the result returns (they cost the encoder nothing
    // more), its keys and values read by every step and by the teacher-forced decode at the end.
    const wantAttention = opts.returnAttention !== false;
    const wantHidden = opts.returnHiddenStates === true;
    const encoded = await encode(inner, read.inputIds, wantAttention, wantHidden, masks);
    await inner.call(CALLS.modelBegin, () => [B, settings.maxLength]);
    // Each step's attention rows are kept (without hidden states, they are all the result needs): the rows of
    // the chosen ids are then the teacher-forced run's, bit for bit, with no pass after the search. onStep's
    // steps carry theirs too.
    const collect = wantAttention && !wantHidden;
    const stepAttention = collect || (wantAttention && Boolean(opts.onStep));
    const steps = [];
    const decode = async (ids) => {
      const r = await inner.send(() => ({
        call: 'decode',
        inputIds: Int32Array.from(ids),
        beams: B,
        returnAttention: stepAttention,
        returnLogits: true,
        headMask: masks,
      }));
      if (collect) steps.push(r);
      return { ...r, logits: r.logits.data };
    };
    let index = 0;
    const onToken = opts.onToken && tokenReporter(inner, opts.onToken);
    // A beam search's best beam can change at any step: its onToken reports carry no text delta (nor does
    // transformers stream beams).
    const texts = B === 1 && (opts.onToken || opts.onStep) && textDeltas(inner, [settings.decoderStartTokenId]);
    const hooks = {
      onToken: B > 1 ? onToken : undefined,
      onStep:
        texts &&
        (async (s) => {
          const textDelta = await texts(s);
          onToken?.(s, textDelta);
          if (opts.onStep) await opts.onStep(publicStep(inner, s, ++index, textDelta, seed));
        }),
      signal: opts.signal,
      random: seed === undefined ? undefined : seededRandom(seed),
      stopText: inner.tokenizer ? stopStringCheck(inner.decodeText, settings.stopStrings) : null,
    };
    const found =
      B === 1
        ? await greedySearch(decode, settings, hooks)
        : await beamSearch(
            decode,
            (parents) => inner.call(CALLS.modelReorder, () => [Int32Array.from(parents)]),
            settings,
            config.vocabSize,
            hooks,
          );
    const candidates = found.candidates ?? [{ outputIds: found.outputIds, score: found.score }];
    for (const c of candidates) {
      c.text = await inner.decodeText(c.outputIds);
      c.tokens = inner.pieces(c.outputIds);
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
    if (seed !== undefined) out.seed = seed;
    // The attention of every token fed back: its rows of the steps, or a teacher-forced run over outputIds
    // but its last (for the hidden states).
    const fed = found.outputIds.subarray(0, found.outputIds.length - 1);
    if (collect) {
      Object.assign(out, assemble(inner, read, encoded, fed, steps, found.origins ?? fed.map(() => 0)));
    } else if (wantAttention || wantHidden) {
      const options = { returnAttention: wantAttention, returnHiddenStates: wantHidden, returnLogits: false, masks };
      Object.assign(out, await forward(inner, read, fed, options, encoded));
    }
    return out;
  });
}

export const encoderDecoder = Object.freeze({ run, generate, teacherForced });
