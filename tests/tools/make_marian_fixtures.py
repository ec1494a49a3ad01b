#!/usr/bin/env python3
"""Writes tests/fixtures/models/hf-marian/ and hf-marian-bin/: a tiny MarianMT
checkpoint (Chinese to English, laid out like Helsinki-NLP/opus-mt-zh-en) made
by Hugging Face transformers itself: MarianConfig, MarianMTModel and
save_pretrained, MarianTokenizer over two SentencePiece Unigram models trained
here by the sentencepiece library (source.spm on Chinese, target.spm on
English, nmt_nfkc normalization, so each file carries sentencepiece's
precompiled charsmap) and one shared vocab.json; each folder with a
reference.json of what transformers computes: the tokenizer's ids and
decoded texts, teacher-forced forward passes (attention weights, hidden
states, logits), the same with heads switched off (Hugging Face's old
head_mask semantics, emulated: transformers 5 no longer takes head_mask) and
model.generate (greedy and beam search).

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-
transformers 5.x, python3-torch 2.x, python3-sentencepiece), from the
repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_marian_fixtures.py"

References in float64 with attn_implementation="eager" (the default attention
returns no weights) on the folder loaded back by from_pretrained; the
parameters are redrawn from a seeded generator, since transformers' own
initialisation makes every head nearly uniform; the weights are saved as
float32 and the reference runs on exactly those values. Writes the Marian
section of tests/fixtures/models/TRANSFORMERS.md (between its markers).
"""
import contextlib
import copy
import io
import json
import os
import re
import shutil
import sys

import numpy as np
import sentencepiece
import torch
import transformers
transformers.logging.set_verbosity_error()
from transformers import GenerationConfig, MarianConfig, MarianMTModel, MarianTokenizer
from transformers.models.marian import modeling_marian

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_fixtures.reference import write_sections  # noqa: E402 (reference.json of named sections)
from fixture_docs import write_section

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
FOLDER, BIN_FOLDER = "hf-marian", "hf-marian-bin"
D, HEADS, FFN, LAYERS, MAX_POSITIONS = 32, 4, 64, 2, 64
MAX_LENGTH, NUM_BEAMS = 20, 4  # generation_config.json: small, so that the max_length rule is exercised
SEED = 39
# Added to final_logits_bias[eos] (on top of its 0.5·noise): with it greedy and beam search end some
# translations with </s> after a few tokens; without it random weights almost never emit </s>.
EOS_BIAS = 3.5
TOLERANCE = {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5, "logitsRel": 1e-4, "logitsAbs": 1e-4,
             "scoreAbs": 1e-4}

SENTENCE = "用毒毒毒蛇，毒蛇会不会被毒毒死"
ENGLISH = "Will a venomous snake be poisoned by venom if we poison it with venom?"

# What source.spm learns its pieces from (Chinese punctuation on purpose: nmt_nfkc folds ，？！： to ASCII).
CHINESE = [
    SENTENCE, "蛇会被毒死吗？", "毒蛇有毒。", "毒蛇会不会被毒死？", "用毒蛇的毒毒毒蛇。", "这条蛇有没有毒？",
    "毒蛇咬了一条蛇。", "那条毒蛇被毒死了！", "他说：“毒蛇不怕毒。”", "蛇毒可以毒死人吗？", "我们用毒毒蛇。",
    "毒蛇的毒很毒。", "不要用毒毒蛇！", "小蛇怕不怕蛇毒？", "一条毒蛇，两条毒蛇。", "毒蛇会被自己的毒毒死吗？",
    "她问：“这是什么蛇？”", "蛇不会被毒死。", "有毒的蛇叫毒蛇。", "毒死一条蛇要多少毒？", "这种毒能毒死毒蛇。",
    "毒蛇吃了有毒的老鼠。", "老鼠被蛇毒死了。", "毒蛇在草里。", "我看见一条大蛇！", "毒蛇会咬人吗？",
    "人被毒蛇咬了会死吗？", "这条蛇没有毒。", "毒蛇的毒是什么？", "用毒毒毒蛇，毒蛇会死。", "毒，毒蛇，毒死。",
    "会不会？不会！", "蛇会游泳吗？", "他们用蛇毒做药。", "蛇毒也是药。", "毒蛇不会毒死自己。",
    "这是一条毒蛇吗？是的。", "毒蛇和蛇有什么不同？", "毒蛇：有毒的蛇。", "我们不要毒蛇。",
]
# What target.spm learns from.
ENGLISH_TEXT = [
    ENGLISH, "Will a snake be poisoned?", "A venomous snake is poisonous.", "The snake bit another snake.",
    "Can snake venom kill a person?", "We poison the snake with venom.", "Is this snake venomous?",
    "The venomous snake was poisoned to death!", "He said: \"Venomous snakes are not afraid of venom.\"",
    "Do not poison the snake!", "One venomous snake, two venomous snakes.", "Will the snake die?",
    "Will a venomous snake be poisoned by its own venom?", "A snake that has venom is a venomous snake.",
    "How much poison does it take to kill a snake?", "This poison can kill a venomous snake.",
    "The venomous snake ate a poisoned mouse.", "The mouse was killed by snake venom.",
    "The venomous snake is in the grass.", "I saw a big snake!", "Do venomous snakes bite people?",
    "Will a person die if a venomous snake bites him?", "This snake is not venomous.", "What is snake venom?",
    "If we poison a venomous snake with venom, it will die.", "Poison, venomous snakes, death.",
    "Will it or will it not? It will not!", "Can snakes swim?", "They make medicine from snake venom.",
    "Snake venom is also a medicine.", "A venomous snake will not poison itself.", "Is this a venomous snake? Yes.",
    "What is the difference between a snake and a venomous snake?", "We do not want venomous snakes.",
    "The snake is poisoned.", "Snakes poison their prey with venom.", "Poisoning a snake is not easy.",
    "It is a snake, not a poison.", "Venom, poison and snakes.", "Why would a snake be poisoned by venom?",
]

# MarianTokenizer cases: what each shows is in TOKENIZER_NOTES (TRANSFORMERS.md).
TOKENIZER_TEXTS = [
    ("sentence", SENTENCE),
    ("leading_space", " " + SENTENCE),
    ("trailing_space", SENTENCE + " "),
    ("double_space", "用毒毒毒蛇，  毒蛇会不会被毒毒死"),
    ("tab", "用毒毒毒蛇，\t毒蛇会不会被毒毒死"),
    ("newline", "用毒毒毒蛇，\n毒蛇会不会被毒毒死"),
    ("ideographic_space", "用毒\u3000毒蛇"),
    ("zero_width_space", "毒\u200b蛇"),
    ("half_width_punctuation", "用毒毒毒蛇,毒蛇会不会被毒毒死?"),
    ("mixed_punctuation", "他说：“毒蛇不怕毒。”会不会?不会！"),
    ("full_width_digits_latin", "１２条毒蛇，ＡＢＣ！"),
    ("unknown_han", "龘"),
    ("unknown_inside", "毒蛇龘龘会不会"),
    ("emoji", "毒蛇🐍"),
    ("kana", "へびの毒"),
    ("empty", ""),
    ("only_spaces", "   "),
    ("language_code", ">>eng<< 用毒毒毒蛇"),
    ("language_code_no_space", ">>eng<<毒蛇"),
    ("language_code_not_first", "毒蛇>>eng<<"),
    ("language_code_unclosed", ">>eng 毒蛇"),
    ("mixed_english", "毒蛇 snake venom"),
    ("special_token_text", "毒蛇</s>毒死"),
    ("unk_and_pad_text", "<unk>毒蛇<pad>"),
    ("repeated", "毒" * 12),
]
TARGET_TEXTS = [("english", ENGLISH), ("english_spaces", "  Will  a snake? "), ("english_caps", "VENOM snakes!"),
                ("english_unknown", "Zebra venom")]


# ---- Tokenizer ----

def train_spm(lines, vocab_size, coverage, max_piece):
    """A SentencePiece Unigram model (its serialized bytes); deterministic: one thread, every sentence used."""
    def once():
        sentencepiece.set_random_generator_seed(SEED)
        out = io.BytesIO()
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(lines), model_writer=out, model_type="unigram", vocab_size=vocab_size,
            normalization_rule_name="nmt_nfkc", character_coverage=coverage, num_threads=1, hard_vocab_limit=False,
            max_sentencepiece_length=max_piece, minloglevel=2)
        return out.getvalue()
    data = once()
    assert once() == data, "sentencepiece training is not deterministic"
    return data


def spm_pieces(path):
    sp = sentencepiece.SentencePieceProcessor(model_file=path)
    return sp, [sp.IdToPiece(i) for i in range(sp.GetPieceSize())
                if not (sp.IsControl(i) or sp.IsUnknown(i))]


def write_tokenizer(path):
    """source.spm, target.spm, vocab.json; then MarianTokenizer(...).save_pretrained(path). Returns the tokenizer."""
    os.makedirs(path, exist_ok=True)
    scratch = os.path.join(path, "_scratch")
    os.makedirs(scratch)
    files = {}
    # (Source pieces of at most 3 characters, as opus-mt-zh-en's are mostly 1 or 2.)
    for name, lines, size, coverage, max_piece in (("source.spm", CHINESE, 160, 1.0, 3),
                                                   ("target.spm", ENGLISH_TEXT, 160, 1.0, 16)):
        files[name] = os.path.join(scratch, name)
        with open(files[name], "wb") as f:
            f.write(train_spm(lines, size, coverage, max_piece))
    # One shared vocabulary, as opus-mt's: </s> 0, <unk> 1, the source pieces, the target pieces not already
    # there, and <pad> last (opus-mt-zh-en: <pad> = 65000 = vocab_size - 1, also decoder_start_token_id).
    vocab = {"</s>": 0, "<unk>": 1}
    for name in ("source.spm", "target.spm"):
        for piece in spm_pieces(files[name])[1]:
            vocab.setdefault(piece, len(vocab))
    vocab["<pad>"] = len(vocab)
    files["vocab.json"] = os.path.join(scratch, "vocab.json")
    with open(files["vocab.json"], "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=2)
    tok = MarianTokenizer(files["source.spm"], files["target.spm"], files["vocab.json"], source_lang="zh",
                          target_lang="en")
    tok.save_pretrained(path)
    shutil.rmtree(scratch)
    for extra in ("special_tokens_map.json", "added_tokens.json", "chat_template.jinja"):
        if os.path.exists(os.path.join(path, extra)):
            os.remove(os.path.join(path, extra))
    return vocab


# ---- Model ----

def redraw(model, seed):
    """Parameters of a seeded normal: heads that look somewhere, LayerNorms that are not the identity, a
    final_logits_bias that is not zero. The sinusoidal position tables are left as transformers makes them."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if "embed_positions" in name:
                continue
            noise = torch.randn(p.shape, generator=g, dtype=torch.float64)
            if name.endswith("layer_norm.weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith(".bias"):
                p.copy_(0.2 * noise)
            elif name == "model.shared.weight":  # ×√32 by scale_embedding: comparable to the positions
                p.copy_(0.3 * noise)
            else:  # nn.Linear [out, in]: 1.6/√in makes the scores peaky
                p.copy_(1.6 / np.sqrt(p.shape[-1]) * noise)
        bias = 0.5 * torch.randn(model.final_logits_bias.shape, generator=g, dtype=torch.float64)
        bias[0, model.config.eos_token_id] += EOS_BIAS
        model.final_logits_bias.copy_(bias)


def make_config(vocab):
    pad = vocab["<pad>"]
    return MarianConfig(vocab_size=len(vocab), decoder_vocab_size=len(vocab), d_model=D, encoder_layers=LAYERS,
                        decoder_layers=LAYERS, encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
                        encoder_ffn_dim=FFN, decoder_ffn_dim=FFN, max_position_embeddings=MAX_POSITIONS,
                        activation_function="swish", scale_embedding=True, pad_token_id=pad,
                        decoder_start_token_id=pad, eos_token_id=0, forced_eos_token_id=0, bos_token_id=0,
                        share_encoder_decoder_embeddings=True, tie_word_embeddings=True,
                        architectures=["MarianMTModel"], attn_implementation="eager")


def generation_config(pad):
    # The fields of opus-mt's generation_config.json (renormalize_logits included), with max_length 20, not 512.
    return GenerationConfig(bad_words_ids=[[pad]], bos_token_id=0, decoder_start_token_id=pad, eos_token_id=0,
                            forced_eos_token_id=0, max_length=MAX_LENGTH, num_beams=NUM_BEAMS, pad_token_id=pad,
                            renormalize_logits=True)


# ---- Head mask (Hugging Face's old semantics, emulated) ----

@contextlib.contextmanager
def head_mask(model, masks):
    """transformers 4's head_mask / decoder_head_mask / cross_attn_head_mask: each layer's attention weights
    (after softmax) multiplied by mask[layer][head] before they weigh the values; the weights returned by
    output_attentions are the multiplied ones. Emulated by replacing modeling_marian.eager_attention_forward,
    which MarianAttention looks up at each call."""
    where = {}
    for i, layer in enumerate(model.model.encoder.layers):
        where[id(layer.self_attn)] = ("encoder", i)
    for i, layer in enumerate(model.model.decoder.layers):
        where[id(layer.self_attn)] = ("decoder", i)
        where[id(layer.encoder_attn)] = ("cross", i)
    original = modeling_marian.eager_attention_forward
    calls = []

    def masked(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        kind, layer = where[id(module)]
        calls.append((kind, layer))
        scores = torch.matmul(query, key.transpose(2, 3)) * scaling
        if attention_mask is not None:
            scores = scores + attention_mask
        weights = torch.softmax(scores, dim=-1)
        weights = weights * torch.tensor(masks[kind][layer], dtype=weights.dtype).view(1, -1, 1, 1)
        out = torch.matmul(weights, value).transpose(1, 2).contiguous()
        return out, weights

    modeling_marian.eager_attention_forward = masked
    try:
        yield calls
    finally:
        modeling_marian.eager_attention_forward = original


HEAD_MASK = {"encoder": [[1, 0, 1, 1], [0, 1, 1, 1]], "decoder": [[1, 1, 0, 1], [1, 1, 1, 0]],
             "cross": [[0, 1, 1, 1], [1, 0, 0, 1]]}


# ---- Cases ----

def forward(model, ids, dec):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([dec]), output_attentions=True,
                     output_hidden_states=True)


def forward_arrays(out):
    return {"encoderAttention": torch.stack(out.encoder_attentions)[:, 0].numpy(),
            "decoderAttention": torch.stack(out.decoder_attentions)[:, 0].numpy(),
            "crossAttention": torch.stack(out.cross_attentions)[:, 0].numpy(),
            "encoderHiddenStates": torch.stack(out.encoder_hidden_states)[:, 0].numpy(),
            "decoderHiddenStates": torch.stack(out.decoder_hidden_states)[:, 0].numpy(),
            "logits": out.logits[0].numpy()}


def budget_use(want, got):
    """The largest fraction of the tolerance that `got` (torch in float32) uses against `want`."""
    use = 0.0
    for k, w in want.items():
        g = got[k].astype(np.float64)
        if "Attention" in k:
            use = max(use, np.max(np.abs(g - w)) / TOLERANCE["attentionAbs"])
        elif k == "logits":
            use = max(use, np.max(np.abs(g - w) / (TOLERANCE["logitsAbs"] + TOLERANCE["logitsRel"] * np.abs(w))))
        else:
            use = max(use, np.max(np.abs(g - w) / (TOLERANCE["hiddenAbs"] + TOLERANCE["hiddenRel"] * np.abs(w))))
    return float(use)


def check_peaks(name, arrays, masked=None):
    """Every head has a row that is not uniform (a key at least 1.25 times its uniform share)."""
    for key, causal in (("encoderAttention", False), ("decoderAttention", True), ("crossAttention", False)):
        a = arrays[key]
        rows, keys = a.shape[-2], a.shape[-1]
        usable = np.arange(1, rows + 1) if causal else np.full(rows, keys)
        if usable.max() < 3:
            continue
        peaks = (a.max(-1) * usable)[..., usable >= 2].max(-1)  # [layers, heads]
        if masked is not None:  # a switched-off head is all zeros
            off = np.asarray(masked[key.replace("Attention", "")]) == 0
            assert np.all(a[off] == 0), (name, key)
            peaks = peaks[~off]
        assert peaks.min() > 1.25, (name, key, peaks)


def forward_case(model, m32, tok, name, text, dec, pad, masks=None):
    ids = tok(text).input_ids
    S, T = len(ids), len(dec)
    ctx = (lambda m: head_mask(m, masks)) if masks else (lambda m: contextlib.nullcontext([]))
    with ctx(model) as calls:
        out = forward(model, ids, dec)
    if masks:
        assert len(calls) == 3 * LAYERS, calls  # every attention went through the masked function
    arrays = forward_arrays(out)
    V = model.config.vocab_size
    shapes = {"encoderAttention": (LAYERS, HEADS, S, S), "decoderAttention": (LAYERS, HEADS, T, T),
              "crossAttention": (LAYERS, HEADS, T, S), "encoderHiddenStates": (LAYERS + 1, S, D),
              "decoderHiddenStates": (LAYERS + 1, T, D), "logits": (T, V)}
    for k, shape in shapes.items():
        assert arrays[k].shape == shape and np.all(np.isfinite(arrays[k])), (name, k, arrays[k].shape)
    # hidden_states[0] is the embeddings' output: token embedding ×√d plus the sinusoidal position.
    emb = model.model.shared.weight.detach()
    scale = np.sqrt(D)
    pos = model.model.encoder.embed_positions.weight.detach()
    assert np.allclose(arrays["encoderHiddenStates"][0], (emb[ids] * scale + pos[:S]).numpy(), atol=1e-12)
    assert np.allclose(arrays["decoderHiddenStates"][0], (emb[dec] * scale + pos[:T]).numpy(), atol=1e-12)
    assert np.allclose(arrays["encoderHiddenStates"][-1], out.encoder_last_hidden_state[0].numpy(), atol=0)
    lm = arrays["decoderHiddenStates"][-1] @ emb.numpy().T + model.final_logits_bias.detach().numpy()[0]
    assert np.allclose(arrays["logits"], lm, atol=1e-10)
    if not masks:
        for k in ("encoderAttention", "decoderAttention", "crossAttention"):
            assert np.allclose(arrays[k].sum(-1), 1.0, atol=1e-12)
        assert np.all(np.triu(arrays["decoderAttention"], 1) == 0)
    check_peaks(name, arrays, masks)
    with ctx(m32):
        got = forward_arrays(forward(m32, ids, dec))
    use = budget_use(arrays, got)
    assert use < 0.5, (name, use)
    case = {"name": name, "text": text, "inputIds": ids, "decoderInputIds": dec,
            "tokens": tok.convert_ids_to_tokens(ids), **arrays, "f32use": use}
    if masks:
        case["headMask"] = masks
    return case


def tokenizer_case(tok, name, text, target=False):
    ids = list((tok(text_target=text) if target else tok(text)).input_ids)
    if target:  # what tok(text_target=...) does around its tokenize
        tok._switch_to_target_mode()
    try:
        pieces = tok.tokenize(text)
    finally:
        tok._switch_to_input_mode()
    assert ids[-1] == tok.eos_token_id
    return {"name": name, "text": text, "pieces": pieces, "inputIds": ids, "tokens": tok.convert_ids_to_tokens(ids)}


def decode_cases(tok, vocab, target_ids):
    pad, unk, eos = vocab["<pad>"], vocab["<unk>"], vocab["</s>"]
    sentence = tok(SENTENCE).input_ids
    lists = [("target_sentence", target_ids), ("generated", [pad] + target_ids),
             ("source_sentence", sentence), ("unk_inside", [pad] + target_ids[:3] + [unk] + target_ids[3:6] + [eos]),
             ("pad_inside", target_ids[:2] + [pad, pad] + target_ids[2:4]), ("only_specials", [pad, eos, unk]),
             ("mixed_sides", sentence[:4] + target_ids[:4] + [eos]), ("empty", [])]
    cases = []
    for name, ids in lists:
        for skip in (True, False):
            text = tok.decode(ids, skip_special_tokens=skip)
            target_spm = tok.decode(ids, skip_special_tokens=skip, use_source_tokenizer=False)
            case = {"name": name, "ids": ids, "skipSpecialTokens": skip, "text": text}
            if target_spm != text:
                case["textTargetSpm"] = target_spm
            cases.append(case)
    return cases


def generate_cases(model, m32, tok, vocab):
    pad, eos = vocab["<pad>"], vocab["</s>"]
    greedy, beam = {"num_beams": 1, "do_sample": False}, {"num_beams": 4, "do_sample": False}
    specs = [
        # No options: generation_config.json's (beam search, 4 beams, max_length 20).
        ("default", EOS_TEXT, {}),
        ("greedy_eos", EOS_TEXT, {**greedy, "max_new_tokens": 19}),
        ("greedy_max_length", SENTENCE, greedy),
        ("greedy_max_new_tokens", SENTENCE, {**greedy, "max_new_tokens": 6}),
        ("greedy_no_repeat_ngram", SENTENCE, {**greedy, "no_repeat_ngram_size": 2, "max_new_tokens": 15}),
        ("beam_eos", EOS_TEXT, beam),
        ("beam_max_length", SENTENCE, beam),
        ("beam_max_new_tokens", SENTENCE, {**beam, "max_new_tokens": 5}),
        ("beam_all_returned", EOS_TEXT, {**beam, "num_return_sequences": 4}),
        ("beam_length_penalty", EOS_TEXT, {**beam, "length_penalty": 0.6}),
        ("beam_early_stopping", EOS_TEXT, {**beam, "early_stopping": True}),
        ("beam_no_repeat_ngram", SENTENCE, {**beam, "no_repeat_ngram_size": 2}),
        ("beam_two", EOS_TEXT, {"num_beams": 2, "do_sample": False, "num_return_sequences": 2}),
    ]
    cases = []
    for name, text, options in specs:
        ids = tok(text).input_ids
        runs = []
        for m in (model, m32):
            with torch.no_grad():
                runs.append(m.generate(torch.tensor([ids]), **options, output_scores=True,
                                       return_dict_in_generate=True))
        out, out32 = runs
        # float32 torch finds the same sequences: the choices are no near-ties.
        assert out32.sequences.tolist() == out.sequences.tolist(), (name, out.sequences, out32.sequences)
        # (Several returned sequences of different lengths are padded with <pad> after their </s>: removed here.)
        sequences = [unpad(seq, pad) for seq in out.sequences.tolist()]
        for seq in sequences:
            assert seq[0] == pad and pad not in seq[1:], (name, seq)  # decoder start, bad_words_ids [[pad]]
        limit = options["max_new_tokens"] + 1 if "max_new_tokens" in options else MAX_LENGTH
        for seq in sequences:  # every sequence ends with </s>: its own, or forced at the last step
            assert seq[-1] == eos and seq.count(eos) == 1 and len(seq) <= limit, (name, seq)
        case = {"name": name, "text": text, "inputIds": ids, "options": options, "sequence": sequences[0],
                "stop": "eos" if len(sequences[0]) < limit else "maxLength",
                "decoded": tok.decode(sequences[0], skip_special_tokens=True)}
        if options.get("num_beams", NUM_BEAMS) == 1:
            # The processed score (renormalized log-probability) of each chosen token, and how far it beats
            # the runner-up (asserted: no near-tie).
            steps = torch.stack(out.scores)[:, 0]  # [steps, V]
            chosen = steps.gather(1, torch.tensor(sequences[0][1:]).view(-1, 1))[:, 0]
            top2 = torch.topk(steps, 2, dim=-1).values
            gaps = (top2[:, 0] - top2[:, 1])
            forced = torch.isinf(top2[:, 1])  # the forced-eos step: everything else is -inf
            assert torch.all(chosen == top2[:, 0]) and torch.all(gaps[~forced] > 1e-3), (name, gaps)
            case["stepScores"] = chosen.double().numpy()
        else:
            scores = out.sequences_scores.double().numpy()
            scores32 = out32.sequences_scores.double().numpy()
            assert np.max(np.abs(scores - scores32)) < TOLERANCE["scoreAbs"] / 2, (name, scores, scores32)
            case["sequenceScore"] = float(scores[0])
            if options.get("num_return_sequences", 1) > 1:
                case["sequences"] = sequences
                case["sequenceScores"] = scores
                assert len(set(map(tuple, sequences))) == len(sequences)
        cases.append(case)
    return cases


def unpad(seq, pad):
    while len(seq) > 1 and seq[-1] == pad:
        seq = seq[:-1]
    return seq


# (With SEED and EOS_BIAS, greedy and beam search end this one with </s> before max_length; SENTENCE runs
# to max_length.)
EOS_TEXT = "这条蛇有没有毒？"


# ---- The computation TRANSFORMERS.md describes, in numpy, from model.safetensors alone ----

def documented_forward(path, ids, dec, masks=None):
    """Float64 numpy from the file's float32 values: what the Model section of TRANSFORMERS.md says."""
    from safetensors.numpy import load_file
    w = {k: v.astype(np.float64) for k, v in load_file(os.path.join(path, "model.safetensors")).items()}
    E = w["model.shared.weight"]
    j = np.arange(D // 2)
    angle = np.arange(MAX_POSITIONS)[:, None] / np.power(10000.0, 2 * j / D)[None, :]
    P = np.concatenate([np.sin(angle), np.cos(angle)], axis=1).astype(np.float32).astype(np.float64)
    lin = lambda x, name: x @ w[name + ".weight"].T + w[name + ".bias"]

    def ln(x, name):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * w[name + ".weight"] + w[name + ".bias"]

    def attention(x, kv, name, causal, mask):
        q, k, v = (lin(a, "%s.%s_proj" % (name, p)).reshape(len(a), HEADS, -1).transpose(1, 0, 2)
                   for a, p in ((x, "q"), (kv, "k"), (kv, "v")))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(D // HEADS)
        if causal:
            scores = np.where(np.tril(np.ones(scores.shape[1:], bool)), scores, -np.inf)
        a = np.exp(scores - scores.max(-1, keepdims=True))
        a = a / a.sum(-1, keepdims=True)
        if mask is not None:
            a = a * np.asarray(mask, np.float64)[:, None, None]
        out = (a @ v).transpose(1, 0, 2).reshape(len(x), D)
        return lin(out, name + ".out_proj"), a

    swish = lambda x: x / (1 + np.exp(-x))
    m = masks or {"encoder": [None] * LAYERS, "decoder": [None] * LAYERS, "cross": [None] * LAYERS}
    h = E[ids] * np.sqrt(D) + P[:len(ids)]
    enc_h, enc_a = [h], []
    for i in range(LAYERS):
        n = "model.encoder.layers.%d." % i
        o, a = attention(h, h, n + "self_attn", False, m["encoder"][i])
        h = ln(h + o, n + "self_attn_layer_norm")
        h = ln(h + lin(swish(lin(h, n + "fc1")), n + "fc2"), n + "final_layer_norm")
        enc_h.append(h)
        enc_a.append(a)
    enc = h
    h = E[dec] * np.sqrt(D) + P[:len(dec)]
    dec_h, dec_a, cross_a = [h], [], []
    for i in range(LAYERS):
        n = "model.decoder.layers.%d." % i
        o, a = attention(h, h, n + "self_attn", True, m["decoder"][i])
        h = ln(h + o, n + "self_attn_layer_norm")
        dec_a.append(a)
        o, a = attention(h, enc, n + "encoder_attn", False, m["cross"][i])
        h = ln(h + o, n + "encoder_attn_layer_norm")
        cross_a.append(a)
        h = ln(h + lin(swish(lin(h, n + "fc1")), n + "fc2"), n + "final_layer_norm")
        dec_h.append(h)
    return {"encoderAttention": np.stack(enc_a), "decoderAttention": np.stack(dec_a),
            "crossAttention": np.stack(cross_a), "encoderHiddenStates": np.stack(enc_h),
            "decoderHiddenStates": np.stack(dec_h), "logits": h @ E.T + w["final_logits_bias"][0]}


DOCUMENTED = None  # how closely documented_forward reproduces the reference (set by make)


def check_documented(path, cases):
    worst = 0.0
    for c in cases:
        got = documented_forward(path, c["inputIds"], c["decoderInputIds"], c.get("headMask"))
        for k, v in got.items():
            worst = max(worst, float(np.max(np.abs(v - c[k]))))
    assert worst < 1e-9, worst
    return worst


# ---- Folders ----

def make():
    path = os.path.join(OUT_DIR, FOLDER)
    shutil.rmtree(path, ignore_errors=True)
    vocab = write_tokenizer(path)
    pad = vocab["<pad>"]
    config = make_config(vocab)
    model = MarianMTModel(config).to(torch.float64).eval()
    redraw(model, SEED)
    model.generation_config = generation_config(pad)
    # The file holds float32; the reference runs in float64 on exactly those values.
    model.to(torch.float32).save_pretrained(path, safe_serialization=True)
    state32 = {k: v.clone() for k, v in model.state_dict().items()}
    write_bin(os.path.join(OUT_DIR, BIN_FOLDER), path, model)

    # The reference: the folder loaded back by transformers.
    tok = MarianTokenizer.from_pretrained(path)
    model = MarianMTModel.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
    for k, v in model.state_dict().items():
        assert torch.equal(v, state32[k].double()), k
    assert model.generation_config.max_length == MAX_LENGTH and model.generation_config.renormalize_logits
    m32 = copy.deepcopy(model).float()

    tokenizer_cases = [tokenizer_case(tok, n, t) for n, t in TOKENIZER_TEXTS]
    target_cases = [tokenizer_case(tok, n, t, target=True) for n, t in TARGET_TEXTS]
    target_ids = target_cases[0]["inputIds"]
    dec = [pad] + target_ids[:5]
    forward_cases = [
        forward_case(model, m32, tok, "sentence", SENTENCE, dec, pad),
        forward_case(model, m32, tok, "second", "蛇会被毒死吗？", [pad] + target_ids[:3], pad),
        forward_case(model, m32, tok, "start_only", SENTENCE, [pad], pad),
    ]
    head_cases = [forward_case(model, m32, tok, "sentence_head_mask", SENTENCE, dec, pad, HEAD_MASK)]
    gen = generate_cases(model, m32, tok, vocab)
    decode = decode_cases(tok, vocab, target_ids)

    summary = {"modelType": "marian", "vocabSize": len(vocab), "dModel": D, "encoderLayers": LAYERS,
               "decoderLayers": LAYERS, "numHeads": HEADS, "ffnDim": FFN, "maxPositions": MAX_POSITIONS,
               "activation": "swish", "scaleEmbedding": True, "maxLength": MAX_LENGTH, "numBeams": NUM_BEAMS}
    specials = {"eos": 0, "unk": 1, "pad": pad, "decoderStart": pad, "forcedEos": 0, "badWordsIds": [[pad]]}
    source = ("Hugging Face transformers %s (MarianMTModel.from_pretrained of this folder, eager attention) on torch "
              "%s, float64; MarianTokenizer over source.spm/target.spm trained by sentencepiece %s; parameters "
              "redrawn from torch.Generator seed %d (final_logits_bias[eos] + %.1f), saved as float32 by "
              "save_pretrained" % (transformers.__version__, torch.__version__, sentencepiece.__version__, SEED,
                                   EOS_BIAS))
    head = {"source": source, "config": summary, "tolerance": TOLERANCE, "specialTokens": specials,
            "generationConfig": json.load(open(os.path.join(path, "generation_config.json")))}
    sections = {"tokenizer": tokenizer_cases, "targetTokenizer": target_cases, "decode": decode,
                "forward": forward_cases, "headMask": head_cases, "generate": gen}
    global DOCUMENTED
    documented = DOCUMENTED = check_documented(path, forward_cases + head_cases)
    print("the documented computation (numpy) agrees with transformers to %.1e" % documented)
    write_sections(os.path.join(path, "reference.json"), head, sections)
    shutil.copy(os.path.join(path, "reference.json"), os.path.join(OUT_DIR, BIN_FOLDER))
    check_bin(os.path.join(OUT_DIR, BIN_FOLDER), forward_cases[0], tok)
    return vocab, tok, tokenizer_cases, target_cases, decode, forward_cases, head_cases, gen


def write_bin(out, path, model):
    """hf-marian-bin/: the same float32 weights as pytorch_model.bin, torch.save of the FULL state_dict as the
    old opus-mt files have it: the tied copies model.encoder.embed_tokens.weight, model.decoder.embed_tokens.weight
    and lm_head.weight share model.shared.weight's storage, and the sinusoidal tables are there too."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    state = model.state_dict()  # float32 already: tensors tied in the model stay one storage
    torch.save(state, os.path.join(out, "pytorch_model.bin"))
    for name in sorted(os.listdir(path)):
        if name != "model.safetensors":
            shutil.copy(os.path.join(path, name), out)


def bin_keys():
    """The names in pytorch_model.bin, in their order (the model's state_dict)."""
    attn = ["%s_proj.%s" % (p, w) for p in "kvqo" for w in ("weight", "bias")]
    attn = [a.replace("o_proj", "out_proj") for a in attn]
    norm = lambda n: ["%s.weight" % n, "%s.bias" % n]
    ffn = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"] + norm("final_layer_norm")
    keys = ["final_logits_bias", "model.shared.weight", "model.encoder.embed_tokens.weight",
            "model.encoder.embed_positions.weight"]
    for i in range(LAYERS):
        keys += ["model.encoder.layers.%d.%s" % (i, k) for k in
                 ["self_attn." + a for a in attn] + norm("self_attn_layer_norm") + ffn]
    keys += ["model.decoder.embed_tokens.weight", "model.decoder.embed_positions.weight"]
    for i in range(LAYERS):
        keys += ["model.decoder.layers.%d.%s" % (i, k) for k in
                 ["self_attn." + a for a in attn] + norm("self_attn_layer_norm") +
                 ["encoder_attn." + a for a in attn] + norm("encoder_attn_layer_norm") + ffn]
    return keys + ["lm_head.weight"]


# In pytorch_model.bin, not in model.safetensors (save_pretrained drops the tied copies and the position tables).
NOT_IN_SAFETENSORS = ["model.encoder.embed_tokens.weight", "model.encoder.embed_positions.weight",
                      "model.decoder.embed_tokens.weight", "model.decoder.embed_positions.weight", "lm_head.weight"]


def check_bin(out, case, tok):
    state = torch.load(os.path.join(out, "pytorch_model.bin"), weights_only=True)
    assert list(state) == bin_keys(), list(state)
    assert all(v.dtype == torch.float32 for v in state.values())
    from safetensors import safe_open
    with safe_open(os.path.join(OUT_DIR, FOLDER, "model.safetensors"), "pt") as f:
        assert sorted(f.keys()) == sorted(k for k in state if k not in NOT_IN_SAFETENSORS), list(f.keys())
        for k in f.keys():
            assert torch.equal(f.get_tensor(k), state[k]), k
    tied = ["model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
            "lm_head.weight"]
    ptrs = {state[k].untyped_storage().data_ptr() for k in tied}
    assert len(ptrs) == 1, "tied weights saved as separate storages"
    for k in ("model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight", "final_logits_bias"):
        assert k in state, k
    model = MarianMTModel.from_pretrained(out, dtype=torch.float64, attn_implementation="eager").eval()
    arrays = forward_arrays(forward(model, case["inputIds"], case["decoderInputIds"]))
    for k, v in arrays.items():
        assert np.array_equal(v, case[k]), k


# ---- TRANSFORMERS.md ----

BEGIN, END = "<!-- BEGIN make_marian_fixtures.py -->", "<!-- END make_marian_fixtures.py -->"


def files_line(folder):
    path = os.path.join(OUT_DIR, folder)
    return ", ".join("`%s` (%d B)" % (f, os.path.getsize(os.path.join(path, f))) for f in sorted(os.listdir(path)))


def code(s):
    return "`%s`" % s.replace("|", "\\|") if s else "(none)"


def limit_of(case):
    o = case["options"]
    return o["max_new_tokens"] + 1 if "max_new_tokens" in o else MAX_LENGTH


def document(vocab, tok, tokenizer_cases, target_cases, decode, forward_cases, head_cases, gen):
    pad = vocab["<pad>"]
    n_source = len(spm_pieces(os.path.join(OUT_DIR, FOLDER, "source.spm"))[1])
    n_target = len(spm_pieces(os.path.join(OUT_DIR, FOLDER, "target.spm"))[1])
    rows = lambda cases, side: "\n".join(
        "| `%s` | %s | %s | %s | %s |" % (c["name"], side, code(json.dumps(c["text"], ensure_ascii=False)),
                                          code(" ".join(c["pieces"])), code(str(c["inputIds"])))
        for c in cases)
    decode_rows = "\n".join("| `%s` | %s | %s | %s |" % (
        c["name"], code(str(c["ids"])), "true" if c["skipSpecialTokens"] else "false",
        code(json.dumps(c["text"], ensure_ascii=False)) +
        (" (target.spm: %s)" % code(json.dumps(c["textTargetSpm"], ensure_ascii=False)) if "textTargetSpm" in c else ""))
        for c in decode)
    gen_rows = "\n".join("| `%s` | %s | %s | %s | %d, %s | %s |" % (
        c["name"], "`SENTENCE`" if c["text"] == SENTENCE else code(c["text"]), code(json.dumps(c["options"])),
        code(str(c["sequence"])), len(c["sequence"]), "**eos**" if c["stop"] == "eos" else "max length",
        ("%.6f" % c["sequenceScore"]) + (" (%d returned)" % len(c["sequences"]) if "sequences" in c else "")
        if "sequenceScore" in c else "greedy") for c in gen)
    fwd = "; ".join("`%s` (S=%d, T=%d, f32 use %.0f%%)" % (c["name"], len(c["inputIds"]), len(c["decoderInputIds"]),
                                                        100 * c["f32use"]) for c in forward_cases + head_cases)
    keys = bin_keys()
    text = MARIAN_DOC.format(
        transformers=transformers.__version__, torch=torch.__version__, spm=sentencepiece.__version__,
        files=files_line(FOLDER), bin_files=files_line(BIN_FOLDER), V=len(vocab), pad=pad, seed=SEED,
        eos_bias=EOS_BIAS, n_source=n_source, n_target=n_target, n_shared=len(vocab) - 3 - n_source,
        last_source=n_source + 1, n_bin=len(keys), n_safe=len(keys) - len(NOT_IN_SAFETENSORS),
        not_in_safe=", ".join("`%s`" % k for k in NOT_IN_SAFETENSORS), first_keys=", ".join(
            "`%s`" % k for k in keys[:4]), tokenizer_rows=rows(tokenizer_cases, "source") + "\n" +
        rows(target_cases, "target"), decode_rows=decode_rows, gen_rows=gen_rows, forward=fwd,
        head_mask=json.dumps(HEAD_MASK), documented=DOCUMENTED, tolerance=json.dumps(TOLERANCE), max_length=MAX_LENGTH,
        sentence=SENTENCE, eos_text=EOS_TEXT, generation=json.dumps(
            json.load(open(os.path.join(OUT_DIR, FOLDER, "generation_config.json"))), sort_keys=True))
    write_section(os.path.join(OUT_DIR, "TRANSFORMERS.md"), BEGIN, END, text)


MARIAN_DOC = """
## MarianMT: `hf-marian/` and `hf-marian-bin/`

Written by [tests/tools/make_marian_fixtures.py](../../tools/make_marian_fixtures.py) (do not edit; this
section is that script's: run it after `make_hf_fixtures.py`, which rewrites this file without it). A
Chinese-to-English MarianMT checkpoint laid out like `Helsinki-NLP/opus-mt-zh-en`, made by Hugging Face
transformers {transformers} itself (`MarianConfig`, `MarianMTModel.save_pretrained`,
`MarianTokenizer.save_pretrained`, `GenerationConfig.save_pretrained`) on torch {torch}, with two
SentencePiece models trained by sentencepiece {spm}. `reference.json` holds what transformers computes for
the folder loaded back by `MarianTokenizer.from_pretrained` and `MarianMTModel.from_pretrained(dtype=float64,
attn_implementation="eager")`; the weights are float32 in the files and the reference runs on exactly those.

* `hf-marian/`: {files}.
* `hf-marian-bin/`: {bin_files}. The same weights, config, tokenizer and `reference.json`, the weights as
  `pytorch_model.bin` (below); transformers loads it to the same outputs bit for bit (checked).

### Model

`config.json`: `vocab_size` = `decoder_vocab_size` {V}, `d_model` 32, `encoder_layers` = `decoder_layers` 2,
4 heads (head size 8) in each, FFN 64, `max_position_embeddings` 64, `activation_function` `swish` (SiLU,
x·σ(x)), `scale_embedding` true, `share_encoder_decoder_embeddings` and `tie_word_embeddings` true,
`pad_token_id` = `decoder_start_token_id` = {pad} (the last id), `eos_token_id` = `forced_eos_token_id` =
`bos_token_id` = 0: opus-mt-zh-en's fields. Its `config.json` (transformers 4.x) also holds `num_beams`,
`max_length` and `bad_words_ids`; transformers 5 keeps those in `generation_config.json` only:
`{generation}`: the fields of opus-mt's `generation_config.json`, `renormalize_logits` included, but
`max_length` {max_length} (opus-mt: 512) so that the max-length rule is exercised.

What transformers computes (MarianMTModel, batch 1, no padding, no attention mask):

* encoder input `E[inputIds]·√32 + P[0..S-1]`, decoder input `E[decoderInputIds]·√32 + P[0..T-1]` (positions
  from 0 on both sides), `E` = `model.shared.weight` [{V}, 32] (row {pad}, `<pad>`, is an ordinary row: the
  decoder starts with it);
* `P` sinusoidal, not interleaved: `P[p][j] = sin(p / 10000^(2j/32))`, `P[p][16+j] = cos(p / 10000^(2j/32))`
  for j < 16, computed in float64 and rounded to float32 (transformers' `create_weight`); not in
  `model.safetensors` (transformers computes it at load), in `pytorch_model.bin` as the two `embed_positions`;
* every layer post-LayerNorm (eps 1e-5): `h = LN(h + SelfAttn(h))`, in the decoder then `h = LN(h +
  CrossAttn(h, encoder output))`, then `h = LN(h + fc2(swish(fc1(h))))`; no embedding LayerNorm, no final
  LayerNorm; attention `softmax(q·kᵀ/√8)·v` (decoder self-attention causal), `nn.Linear` weights [out, in];
* `logits = decoder output · Eᵀ + final_logits_bias` (the LM head is `E`; `final_logits_bias` [1, {V}] is a
  persistent buffer, in both files, nonzero here so a test shows it is added).

The script checks this description: numpy in float64 from `model.safetensors` alone, with the position table as
above, reproduces every forward and head-mask case of the reference to {documented:.1e}.

The parameters are redrawn from torch.Generator seed {seed} (sorted names; LayerNorm weights 1 + 0.2·n, biases
0.2·n, `model.shared.weight` 0.3·n, `nn.Linear` weights 1.6/√in·n), `final_logits_bias` 0.5·n with {eos_bias}
added at `</s>` (0): random weights almost never emit `</s>`; with it, greedy and beam search end the
translation of `{eos_text}` with `</s>` after a few tokens while `{sentence}` runs to the max length.
Random weights translate into repetitions (`Can Can die Can die …`): the `stepScores` and beam scores check
every step's numbers, the `no_repeat_ngram_size` cases give varied sequences.

### Weight files

* `model.safetensors` (save_pretrained): {n_safe} F32 tensors: `final_logits_bias`, `model.shared.weight` and the
  layers; not the tied copies nor the position tables.
* `pytorch_model.bin` (`torch.save` of the full `state_dict()`, zip format, float32, as old opus-mt repositories
  have it): {n_bin} names, in this order: {first_keys}, then for i = 0, 1 `model.encoder.layers.{{i}}.` +
  `self_attn.{{k,v,q,out}}_proj.{{weight,bias}}`, `self_attn_layer_norm.{{weight,bias}}`, `fc1.{{weight,bias}}`,
  `fc2.{{weight,bias}}`, `final_layer_norm.{{weight,bias}}`; then `model.decoder.embed_tokens.weight`,
  `model.decoder.embed_positions.weight`, for i = 0, 1 `model.decoder.layers.{{i}}.` + `self_attn.*` (as the
  encoder's), `self_attn_layer_norm.*`, `encoder_attn.{{k,v,q,out}}_proj.{{weight,bias}}`,
  `encoder_attn_layer_norm.{{weight,bias}}`, `fc1.*`, `fc2.*`, `final_layer_norm.*`; last `lm_head.weight`.
  `model.encoder.embed_tokens.weight`, `model.decoder.embed_tokens.weight` and `lm_head.weight` [{V}, 32] are
  the same tensor as `model.shared.weight`: one storage in the archive, four names. In the `.bin` and not in
  the safetensors: {not_in_safe}.

### Tokenizer

`source.spm` ({n_source} pieces besides `<unk>` `<s>` `</s>`, trained on 40 Chinese sentences, pieces of at most 3
characters) and `target.spm` ({n_target}, 40 English sentences): SentencePiece Unigram models
(`num_threads=1`, training checked deterministic), `normalization_rule_name="nmt_nfkc"`, so each file carries
sentencepiece's precompiled charsmap (most of its 240 kB), `add_dummy_prefix` and
`remove_extra_whitespaces` on (the defaults). `vocab.json`, shared by both sides as opus-mt's:
`</s>` 0, `<unk>` 1, the source pieces in source.spm order (ids 2…{last_source}), the target pieces not
already there ({n_shared}), `<pad>` {pad} last; not `<s>`. `tokenizer_config.json` is transformers' own
(`MarianTokenizer`, `source_lang` zh, `target_lang` en, `separate_vocabs` false, `model_max_length` 512; no
`special_tokens_map.json`). What `MarianTokenizer` does (the table below shows each):

1. Special-token texts in the input (`</s>`, `<unk>`, `<pad>`) are split out first and give their ids; each
   piece of text between them is encoded on its own (so it gets its own `▁` prefix: `special_token_text`).
2. A text (segment) that starts with `>>` and contains `<<` loses its prefix up to the first `<<`, which
   becomes one token looked up in vocab.json (this vocabulary has no `>>xx<<` codes: `<unk>`); the rest is
   encoded as a text of its own (its leading space dropped, `▁` in front as always). Not at the start, or
   without `<<`, nothing special happens (there `>`, `<` and Latin letters are unknown to source.spm).
3. `source.spm`'s `encode(text, out_type=str)`: nmt_nfkc normalization (NFKC: full-width `，？！：１２ＡＢＣ`,
   the ideographic space fold to ASCII; tab, newline, U+200B become spaces; leading and trailing whitespace
   removed, runs of whitespace collapsed to one), `▁` for each space and one in front, Unigram Viterbi
   segmentation; characters the model does not have become pieces of their own, and consecutive ones merge
   into one piece (`龘龘`, `へびの`, `12`).
4. Each piece → its id in **vocab.json** (not the spm's own ids); a piece not in vocab.json → `<unk>` (1).
5. `</s>` (0) appended. An empty or all-space text gives `[0]`. No text is ever truncated here.

`targetTokenizer` cases are `tokenizer(text_target=…)`: the same with `target.spm` and the same vocab.json.

| case | side | text | pieces | inputIds |
|---|---|---|---|---|
{tokenizer_rows}

Decoding (`decode(ids, skip_special_tokens)`): each id → its vocab.json piece; with `skip_special_tokens` the
ids of `</s>`, `<unk>` and `<pad>` are dropped; the pieces are joined by sentencepiece's `decode_pieces` of
**source.spm** (transformers 5.12's default for a shared vocabulary, `use_source_tokenizer = not
separate_vocabs`; transformers 4 used target.spm), which keeps a piece it does not know verbatim (`▁` and
all) and drops the leading space of the first piece it knows; then every `▁` becomes a space and the result is
stripped. Without skipping, each special token is written as its text followed by a space, the pieces
before it decoded first. Where target.spm would decode differently the case has `textTargetSpm` too (here
only without skipping: source.spm does not know `▁Will`, so the space after `<pad> ` stays).

| case | ids | skip | text |
|---|---|---|---|
{decode_rows}

### reference.json (Marian)

```
{{ "source", "config": {{modelType, vocabSize, dModel, encoderLayers, decoderLayers, numHeads, ffnDim, maxPositions,
             activation, scaleEmbedding, maxLength, numBeams}},
  "tolerance", "specialTokens": {{eos, unk, pad, decoderStart, forcedEos, badWordsIds}},
  "generationConfig": generation_config.json's content,
  "tokenizer": [{{name, text, pieces, inputIds, tokens}}], "targetTokenizer": [same],
  "decode": [{{name, ids, skipSpecialTokens, text, textTargetSpm?}}],
  "forward": [{{name, text, inputIds, decoderInputIds, tokens, encoderAttention, decoderAttention, crossAttention,
               encoderHiddenStates, decoderHiddenStates, logits, f32use}}],
  "headMask": [the same fields + headMask: {{encoder, decoder, cross}}: [layer][head] of 0/1],
  "generate": [{{name, text, inputIds, options, sequence, stop, decoded, stepScores | sequenceScore,
                sequences?, sequenceScores?}}] }}
```

* `pieces`: what source.spm (target.spm) gives before the vocab.json lookup (with a language code: the code
  first); `tokens`: `convert_ids_to_tokens(inputIds)` (`<unk>` where the piece is not in vocab.json).
* Forward (teacher forcing): `model(input_ids=[inputIds], decoder_input_ids=[decoderInputIds],
  output_attentions=True, output_hidden_states=True)`, `inputIds` = the tokenizer's (with `</s>`), S = its
  length, `decoderInputIds` = `[{pad}]` + the first target ids of the English sentence, T = its length. Arrays
  flat in C order: `encoderAttention` [2, 4, S, S], `decoderAttention` [2, 4, T, T] (0 above the diagonal),
  `crossAttention` [2, 4, T, S] (`[layer][head][query][key]`, after softmax), `encoderHiddenStates` [3, S, 32]
  and `decoderHiddenStates` [3, T, 32] (the embeddings' output `E·√32 + P`, then each layer's output; the last
  encoder one is what the decoder attends to), `logits` [T, {V}]. `f32use`: the largest fraction of the
  tolerance used by the same model in torch float32. Cases: {forward}. Every head has a row that is not
  uniform (a key given at least 1.25 times its uniform share).
* `headMask`: the `sentence` case with heads switched off, Hugging Face's old `head_mask` /
  `decoder_head_mask` / `cross_attn_head_mask` (transformers 4; transformers 5 has none): in each layer the
  attention weights, after softmax, are multiplied by `mask[layer][head]` before they weigh the values, and the
  weights returned (and stored here) are the multiplied ones (a switched-off head: all 0). Emulated by
  replacing `transformers.models.marian.modeling_marian.eager_attention_forward` (which `MarianAttention`
  looks up at each call) with that computation while the case runs. Masks: `{head_mask}`.
* Numbers: float64 results at 12 significant digits (the shortest decimal of that value), as the other folders.
  Tolerance `{tolerance}`: attention `|got - want| <= attentionAbs`; hidden states `|got - want| <= hiddenAbs +
  hiddenRel·|want|`; logits the same with `logitsAbs`, `logitsRel`; scores (`stepScores`, `sequenceScore(s)`)
  `|got - want| <= scoreAbs`.

### Generation

`generate` cases: `model.generate([inputIds], **options, output_scores=True, return_dict_in_generate=True)`
with the folder's `generation_config.json`, `options` as given (`{{}}`: its defaults, 4 beams). The rules that
give these sequences (transformers 5.12):

* The sequence starts with `decoder_start_token_id` ({pad}); `max_length` ({max_length}) counts it, and
  `max_new_tokens` replaces it by 1 + `max_new_tokens`. Every step's scores (last position) go through, in
  order: `no_repeat_ngram_size` when given (a token that would repeat an n-gram of the decoder sequence, the
  start token included → -inf), `bad_words_ids` [[{pad}]] (`<pad>` → -inf), `forced_eos_token_id` (at the
  step that fills the last place, length max_length - 1 → max_length, every token but `</s>` → -inf), then
  `renormalize_logits` (log_softmax of the processed scores).
* Greedy (`num_beams` 1): the argmax; stops after `</s>`. `stepScores` is each chosen token's processed score
  (a log-probability after renormalization; the forced `</s>` has 0); no step is a near tie (top two at least
  1e-3 apart, checked).
* Beam search: per step each beam's log_softmax(logits), through the processors above (`renormalize_logits`:
  log_softmax again), added to the beam's running sum; the best 2·num_beams continuations over all beams; one
  ending in `</s>` (or reaching the max length) is a finished hypothesis with score sum /
  (generated length)^length_penalty, generated length = the tokens after the start token, `</s>` included;
  the best num_beams others continue. Stopping (`GenerationMixin._beam_search`): `early_stopping` false (the
  default): once num_beams hypotheses are finished and the best running beam's sum / (current generated
  length)^length_penalty cannot beat the worst of them; true: as soon as num_beams are finished; at the
  latest at the max length. `sequenceScore` = `sequences_scores[0]`, the best finished score;
  with `num_return_sequences` n, `sequences` and `sequenceScores` give the n best, in order (transformers
  pads the shorter ones with `<pad>` after their `</s>`; removed here). Beam search runs in float32 even on
  a float64 model; torch float32 finds the same sequences and scores within scoreAbs/2 (checked).
* `stop`: **eos** = `</s>` chosen before the limit; max length = the sequence fills max_length (or
  1 + max_new_tokens) and ends with the forced `</s>`. Every sequence ends with one `</s>`; `<pad>` never
  appears after the start. `decoded` = `decode(sequence, skip_special_tokens=True)`.

| case | text | options | sequence | length, stop | score |
|---|---|---|---|---|---|
{gen_rows}
"""


def main():
    torch.manual_seed(0)
    results = make()
    document(*results)
    for name in (FOLDER, BIN_FOLDER):
        print(name, files_line(name))


if __name__ == "__main__":
    main()
