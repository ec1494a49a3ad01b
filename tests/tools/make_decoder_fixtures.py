#!/usr/bin/env python3
"""Writes tests/fixtures/models/hf-qwen2/, hf-qwen3/, hf-llama/,
hf-llama-rope-scaling/, hf-gpt2-lm/ and hf-bert-mlm/: tiny checkpoints with a
language-model head made by Hugging Face transformers itself (Qwen2ForCausalLM,
Qwen3ForCausalLM, LlamaForCausalLM, GPT2LMHeadModel, BertForMaskedLM;
save_pretrained of model, tokenizer and generation config), tokenizers trained
here by the `tokenizers` library and handed to transformers' own tokenizer
classes (Qwen2Tokenizer for both Qwens, LlamaTokenizer, GPT2Tokenizer,
BertTokenizer: transformers 5 builds the tokenizer.json from the vocabulary and
merges), each folder with a reference.json of what transformers computes:
hidden states, attention weights and logits of forward passes, and (decoders)
model.generate, greedy.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-
transformers 5.x, python3-torch 2.x, python3-tokenizers), from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_decoder_fixtures.py" [FOLDER ...]

Given folder names (e.g. hf-qwen3) it writes those folders alone; the decoders'
section of TRANSFORMERS.md, which describes every folder, only a run of all
(no arguments) writes.

References: the folder loaded back by from_pretrained(dtype=float64,
attn_implementation="eager") (the default attention returns no weights); the
parameters are redrawn from a seeded generator in float64 (transformers' own
initialisation makes every head nearly uniform), saved as float32 (hf-llama*,
hf-qwen3: bfloat16) and the reference runs on exactly the saved values.
Transformers' Llama, Qwen2 and Qwen3 code computes RMSNorm (Qwen3's q_norm and
k_norm too), softmax and the RoPE angles in float32 even in a float64 model; a
numpy float64 reimplementation of what TRANSFORMERS.md describes, from the
weight files alone, checks every forward case (its distance from transformers
is written there). Writes the decoders' section of
tests/fixtures/models/TRANSFORMERS.md (between its markers).
"""
import copy
import json
import math
import os
import re
import shutil
import sys

import numpy as np
import tokenizers
import torch
import transformers
transformers.logging.set_verbosity_error()
import warnings  # noqa: E402
warnings.filterwarnings("ignore")
from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers  # noqa: E402
from transformers import (BertConfig, BertForMaskedLM, BertTokenizer, GenerationConfig, GPT2Config,  # noqa: E402
                          GPT2LMHeadModel, GPT2Tokenizer, LlamaConfig, LlamaForCausalLM, LlamaTokenizer,
                          Qwen2Config, Qwen2ForCausalLM, Qwen2Tokenizer, Qwen3Config, Qwen3ForCausalLM)

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_fixtures.reference import write_sections  # noqa: E402 (reference.json of named sections)
from model_fixtures.tokenizers import BYTE_ORDER, readable_tokens  # noqa: E402
from fixture_docs import write_section

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
D, HEADS, KV_HEADS, FFN, LAYERS, MAX_POSITIONS = 32, 4, 2, 64, 2, 64
TOLERANCE = {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5, "logitsRel": 1e-4, "logitsAbs": 1e-4,
             "scoreAbs": 1e-4}

SENTENCE = "用毒毒毒蛇，毒蛇会不会被毒毒死"
ENGLISH = "Will a venomous snake be poisoned by venom if we poison it with venom?"
CORPUS = [SENTENCE, ENGLISH, "毒蛇会被毒死", "蛇会被毒死吗？", "the snake poisons the snake", "用毒 毒蛇",
          "A venomous snake is poisonous.", "We poison the snake with venom."] * 3
# The Llama tokenizer learns from texts without 死 and ，: those two fall back to byte pieces.
LLAMA_CORPUS = [t.replace("死", "").replace("，", " ") for t in CORPUS]
LLAMA_PIECES = 44  # the BPE's alphabet and merges: 3 + 256 + 44 ids in all
SHORT = "We poison the snake."  # the short English text


# ---- Tokenizers ----

def train_bpe(corpus, pre_tokenizer, size, alphabet=None):
    """A BPE trained by the tokenizers library: (vocab in training order, merges as pairs). Checked deterministic."""
    def once():
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizer
        kwargs = {"initial_alphabet": alphabet} if alphabet else {}
        tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=size, show_progress=False, **kwargs))
        model = json.loads(tok.to_str())["model"]
        return model["vocab"], [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    first = once()
    assert once() == first, "BPE training is not deterministic"
    return first


def byte_level_vocab(merges, extra=()):
    """GPT-2's layout: the 256 byte characters in bytes_to_unicode order (ids 0-255), then one token per merge."""
    vocab = {c: i for i, (_, c) in enumerate(BYTE_ORDER)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    for t in extra:
        vocab[t] = len(vocab)
    return vocab


QWEN_REGEX = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"""
              r"""\s*[\r\n]+|\s+(?!\S)|\s+""")


def qwen2_tokenizer():
    """Qwen2's layout: byte-level BPE (Qwen's split regex, NFC), then <|endoftext|> <|im_start|> <|im_end|>."""
    pre = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN_REGEX), behavior="isolated", invert=False),
                                   pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    _, merges = train_bpe(CORPUS, pre, 256 + 30, pre_tokenizers.ByteLevel.alphabet())
    vocab = byte_level_vocab(merges)
    tok = Qwen2Tokenizer(vocab=vocab, merges=merges, unk_token=None, bos_token=None, eos_token="<|endoftext|>",
                         pad_token="<|endoftext|>", extra_special_tokens=["<|im_start|>", "<|im_end|>"])
    return tok


def gpt2_tokenizer():
    """GPT-2's layout: byte-level BPE (GPT-2's split), then <|endoftext|> last."""
    _, merges = train_bpe(CORPUS, pre_tokenizers.ByteLevel(add_prefix_space=False), 256 + 24,
                          pre_tokenizers.ByteLevel.alphabet())
    vocab = byte_level_vocab(merges, ["<|endoftext|>"])
    return GPT2Tokenizer(vocab=vocab, merges=merges)


def llama_tokenizer():
    """Llama 2's layout: <unk> <s> </s>, the 256 byte pieces <0x00>…<0xFF>, then the BPE pieces (merges in
    order, then the single characters); transformers 5's LlamaTokenizer: Metaspace ("▁", prepend first), BPE
    with byte_fallback, <s> added in front."""
    vocab_trained, merges = train_bpe(LLAMA_CORPUS, pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always"),
                                      LLAMA_PIECES)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    for t, _ in sorted(vocab_trained.items(), key=lambda kv: kv[1]):
        vocab.setdefault(t, len(vocab))
    return LlamaTokenizer(vocab=vocab, merges=merges, add_bos_token=True, add_eos_token=False)


BERT_VOCAB = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list("用毒蛇，会不被死吗？") +
              ["will", "a", "venom", "##ous", "snake", "be", "poison", "##ed", "by", "if", "we", "it", "with",
               "the", "##s", "?", ",", "."])


def bert_tokenizer():
    return BertTokenizer(vocab={t: i for i, t in enumerate(BERT_VOCAB)})


def save_tokenizer(tok, path):
    tok.save_pretrained(path)
    for extra in ("special_tokens_map.json", "added_tokens.json", "chat_template.jinja"):
        if os.path.exists(os.path.join(path, extra)):
            os.remove(os.path.join(path, extra))
    return transformers.AutoTokenizer.from_pretrained(path)


def readable_of(kind, tok, tokens):
    """README.md's readable rule: byte-level pieces decoded (numbered where a character spans pieces); Llama's
    byte-fallback pieces <0xHH> by the same rule (their bytes), its other pieces as they are (▁ kept, as the
    SentencePiece folders show them); WordPiece as it is."""
    specials = set(tok.all_special_tokens)
    if kind == "bytes":
        return readable_tokens(tokens, specials)
    if kind == "spm":
        byte = re.compile(r"^<0x([0-9A-F]{2})>$")
        enc = dict(BYTE_ORDER)
        as_bytes = [enc[int(byte.match(t).group(1), 16)] if byte.match(t) else t for t in tokens]
        keep = {t for t in tokens if not byte.match(t)}
        return readable_tokens(as_bytes, keep)
    return list(tokens)


# ---- Models ----

def redraw(model, seed, family):
    """Parameters of a seeded normal (float64, sorted names): norm weights 1 + 0.2·n, biases 0.2·n, token
    embeddings 0.7·n (GPT-2's positions 0.3·n), every other matrix 1.6/√in·n (nn.Linear [out, in], GPT-2's
    Conv1D [in, out])."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            noise = torch.randn(p.shape, generator=g, dtype=torch.float64)
            if re.search(r"(norm|LayerNorm|ln_\w+)\.weight$", name):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith(".bias"):
                p.copy_(0.2 * noise)
            elif name.endswith(("embed_tokens.weight", "wte.weight", "word_embeddings.weight")):
                p.copy_(0.7 * noise)
            elif name.endswith(("wpe.weight", "position_embeddings.weight", "token_type_embeddings.weight")):
                p.copy_(0.3 * noise)
            else:
                fan_in = p.shape[0] if family == "gpt2" else p.shape[-1]
                p.copy_(1.6 / np.sqrt(fan_in) * noise)


def base_of(model):
    return getattr(model, "model", None) or getattr(model, "transformer", None) or model.bert


def output_rows(model):
    """The matrix whose rows are the LM head's: lm_head.weight (untied) or the token embedding (tied)."""
    if model.config.tie_word_embeddings:
        return model.get_input_embeddings().weight
    return model.lm_head.weight


def bias_eos(model, tok, eos, beta):
    """Adds beta · the unit mean of the final hidden states (after the final norm) over every position of the
    corpus texts to the LM head's row of `eos` (tied models: the embedding row, which is the same tensor), so
    that greedy search emits eos after some prompts; random weights almost never do."""
    states = []
    with torch.no_grad():
        for text in CORPUS[:8]:
            out = base_of(model)(input_ids=torch.tensor([tok(text).input_ids]))
            states.append(out.last_hidden_state[0])
        m = torch.cat(states).mean(0)
        output_rows(model)[eos] += beta * m / m.norm()


# ---- Forward cases ----

def forward(model, ids):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)


def arrays_of(out):
    hidden = torch.stack(out.hidden_states)[:, 0].numpy()
    return {"lastHiddenState": hidden[-1], "hiddenStates": hidden,
            "attention": torch.stack(out.attentions)[:, 0].numpy(), "logits": out.logits[0].numpy()}


def budget_use(want, got):
    """The largest fraction of the tolerance that `got` (torch in float32) uses against `want`."""
    use = 0.0
    for k, w in want.items():
        g = got[k].astype(np.float64)
        if k == "attention":
            use = max(use, np.max(np.abs(g - w)) / TOLERANCE["attentionAbs"])
        elif k == "logits":
            use = max(use, np.max(np.abs(g - w) / (TOLERANCE["logitsAbs"] + TOLERANCE["logitsRel"] * np.abs(w))))
        else:
            use = max(use, np.max(np.abs(g - w) / (TOLERANCE["hiddenAbs"] + TOLERANCE["hiddenRel"] * np.abs(w))))
    return float(use)


def forward_case(spec, model, m32, tok, name, inp):
    if isinstance(inp, str):
        enc = tok(inp)
        ids = list(enc.input_ids)
        types = list(enc.get("token_type_ids") or [0] * len(ids))
    else:
        ids, types = list(inp["inputIds"]), [0] * len(inp["inputIds"])
    L, causal = len(ids), spec["causal"]
    out = forward(model, ids)
    arrays = arrays_of(out)
    V = model.config.vocab_size
    assert arrays["hiddenStates"].shape == (LAYERS + 1, L, D), arrays["hiddenStates"].shape
    assert arrays["attention"].shape == (LAYERS, HEADS, L, L) and arrays["logits"].shape == (L, V)
    for v in arrays.values():
        assert np.all(np.isfinite(v))
    assert np.allclose(arrays["attention"].sum(-1), 1.0, atol=1e-6)
    if causal:
        assert np.all(np.triu(arrays["attention"], 1) == 0)
    # hidden_states[-1] is the base model's last_hidden_state (after the final norm), the LM head's input.
    with torch.no_grad():
        last = base_of(model)(input_ids=torch.tensor([ids])).last_hidden_state[0].numpy()
    assert np.array_equal(arrays["hiddenStates"][-1], last), name
    # Every head has a row that is not uniform (a key at least 1.25 times its uniform share).
    usable = np.arange(1, L + 1) if causal else np.full(L, L)
    peaks = (arrays["attention"].max(-1) * usable)[..., usable >= 2].max(-1)
    assert peaks.min() > 1.25, (spec["folder"], name, peaks)
    got = arrays_of(forward(m32, ids))
    use = budget_use(arrays, got)
    assert use < 0.5, (spec["folder"], name, use)
    tokens = tok.convert_ids_to_tokens(ids)
    case = {"name": name, "input": inp, "inputIds": ids, "tokenTypeIds": types, "positionIds": list(range(L)),
            "tokens": tokens, "readable": readable_of(spec["readable"], tok, tokens), **arrays,
            "f32use": use, "peak": float(peaks.min())}
    return case


# ---- Generation ----

def generate_case(spec, model, m32, tok, name, prompt, options):
    ids = tok(prompt).input_ids if isinstance(prompt, str) else list(prompt["inputIds"])
    runs = []
    for m in (model, m32):
        with torch.no_grad():
            x = torch.tensor([ids])
            runs.append(m.generate(x, attention_mask=torch.ones_like(x), **options, output_scores=True,
                                   output_logits=True, return_dict_in_generate=True))
    out, out32 = runs
    assert out32.sequences.tolist() == out.sequences.tolist(), (spec["folder"], name, out.sequences, out32.sequences)
    seq = out.sequences[0].tolist()
    assert seq[:len(ids)] == ids
    new = seq[len(ids):]
    gc = model.generation_config
    eos = gc.eos_token_id if isinstance(gc.eos_token_id, list) else [gc.eos_token_id]
    if "max_new_tokens" in options:
        limit = options["max_new_tokens"]
    elif gc.max_length is not None and "max_length" in gc.to_diff_dict():
        limit = gc.max_length - len(ids)
    else:  # transformers 5: 20 new tokens, at most max_position_embeddings in all
        limit = min(20, model.config.max_position_embeddings - len(ids))
    assert all(t not in eos for t in new[:-1]) and len(new) <= limit, (name, new)
    stop = "eos" if new and new[-1] in eos else "maxLength"
    assert stop == "eos" or len(new) == limit, (name, len(new), limit)
    if "min_new_tokens" in options:
        assert len(new) > options["min_new_tokens"] or stop != "eos"
    steps = torch.stack(out.scores)[:, 0]  # [new, V]: processed scores
    chosen = steps.gather(1, torch.tensor(new).view(-1, 1))[:, 0]
    top2 = torch.topk(steps, 2, dim=-1).values
    gaps = top2[:, 0] - top2[:, 1]
    assert torch.all(chosen == top2[:, 0]) and torch.all(gaps > 1e-3), (spec["folder"], name, gaps)
    raw = torch.stack(out.logits)[:, 0].gather(1, torch.tensor(new).view(-1, 1))[:, 0]
    s32 = torch.stack(out32.scores)[:, 0].gather(1, torch.tensor(new).view(-1, 1))[:, 0].double()
    assert torch.max(torch.abs(s32 - chosen)) < TOLERANCE["scoreAbs"] / 2, (name, chosen, s32)
    if "repetition_penalty" in options:
        # transformers applies it to every id of the sequence so far, the prompt included, on the raw logits:
        # a seen token's logit divided by the penalty when positive, multiplied when negative.
        p, seen = options["repetition_penalty"], list(ids)
        for t, r, c in zip(new, raw.tolist(), chosen.tolist()):
            want = (r / p if r > 0 else r * p) if t in seen else r
            assert abs(want - c) <= 1e-6 * abs(want), (name, t, r, c)  # (generate's logits are float32)
            seen.append(t)
    case = {"name": name}
    if isinstance(prompt, str):
        case["text"] = prompt
    case.update({"inputIds": ids, "options": options, "sequence": seq, "newTokens": len(new), "stop": stop,
                 "decoded": tok.decode(seq, skip_special_tokens=True),
                 "decodedNew": tok.decode(new, skip_special_tokens=True),
                 "stepScores": chosen.numpy(), "stepLogits": raw.numpy()})
    return case


# ---- The computation TRANSFORMERS.md describes, in numpy float64, from the weight files alone ----

def load_weights(path):
    from safetensors.torch import load_file
    return {k: v.to(torch.float64).numpy() for k, v in load_file(os.path.join(path, "model.safetensors")).items()}


def rope_inv_freq(cfg):
    """The inverse frequencies (float64; transformers computes them in float32)."""
    rp = cfg["rope_parameters"]
    dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    inv = 1.0 / rp["rope_theta"] ** (np.arange(0, dim, 2) / dim)
    if rp["rope_type"] == "llama3":
        factor, lo, hi, old = (rp["factor"], rp["low_freq_factor"], rp["high_freq_factor"],
                               rp["original_max_position_embeddings"])
        wavelen = 2 * math.pi / inv
        smooth = (old / wavelen - lo) / (hi - lo)
        inv = np.where(wavelen > old / lo, inv / factor,
                       np.where(wavelen < old / hi, inv, (1 - smooth) * inv / factor + smooth * inv))
    else:
        assert rp["rope_type"] == "default"
    return inv


def documented_llama(path, ids):
    """Llama / Qwen2 / Qwen3 (LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM) as TRANSFORMERS.md describes
    them, in float64."""
    cfg = json.load(open(os.path.join(path, "config.json")))
    w = load_weights(path)
    H, KV, eps = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["rms_norm_eps"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // H
    # Qwen3: an RMSNorm over each head's hd values of q and of k (weights [hd], the model's eps), before RoPE.
    head_norm = cfg["model_type"] == "qwen3"
    assert head_norm == any(k.endswith("q_norm.weight") for k in w), sorted(w)
    lin = lambda x, n: x @ w[n + ".weight"].T + (w[n + ".bias"] if n + ".bias" in w else 0)
    rms = lambda x, n: x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w[n + ".weight"]
    L = len(ids)
    angle = np.arange(L)[:, None] * rope_inv_freq(cfg)[None, :]  # [L, hd/2]
    cos, sin = np.cos(np.concatenate([angle, angle], 1)), np.sin(np.concatenate([angle, angle], 1))
    rot = lambda x: np.concatenate([-x[..., hd // 2:], x[..., :hd // 2]], -1)  # rotate_half
    rope = lambda x: x * cos + rot(x) * sin  # x [heads, L, hd]
    h = w["model.embed_tokens.weight"][ids]
    hidden, attn = [h], []
    for i in range(cfg["num_hidden_layers"]):
        n = "model.layers.%d." % i
        x = rms(h, n + "input_layernorm")
        q, k = lin(x, n + "self_attn.q_proj").reshape(L, H, hd), lin(x, n + "self_attn.k_proj").reshape(L, KV, hd)
        if head_norm:
            q, k = rms(q, n + "self_attn.q_norm"), rms(k, n + "self_attn.k_norm")
        q, k = rope(q.transpose(1, 0, 2)), rope(k.transpose(1, 0, 2))
        v = lin(x, n + "self_attn.v_proj").reshape(L, KV, hd).transpose(1, 0, 2)
        k, v = np.repeat(k, H // KV, 0), np.repeat(v, H // KV, 0)  # query head j uses key/value head j // (H/KV)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
        s = np.where(np.tril(np.ones((L, L), bool)), s, -np.inf)
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        attn.append(a)
        h = h + lin((a @ v).transpose(1, 0, 2).reshape(L, H * hd), n + "self_attn.o_proj")
        x = rms(h, n + "post_attention_layernorm")
        g = lin(x, n + "mlp.gate_proj")
        h = h + lin(g / (1 + np.exp(-g)) * lin(x, n + "mlp.up_proj"), n + "mlp.down_proj")
        hidden.append(h)
    hidden[-1] = rms(h, "model.norm")
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["model.embed_tokens.weight"]
    assert ("lm_head.weight" in w) == (not cfg["tie_word_embeddings"])
    return {"hiddenStates": np.stack(hidden), "attention": np.stack(attn), "logits": hidden[-1] @ head.T}


def documented_gpt2_head(path, case):
    w = load_weights(path)
    assert "lm_head.weight" not in w
    return {"logits": case["lastHiddenState"] @ w["transformer.wte.weight"].T}


def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def documented_bert(path, case):
    w = load_weights(path)
    assert "cls.predictions.decoder.weight" not in w
    h = case["lastHiddenState"]
    x = gelu(h @ w["cls.predictions.transform.dense.weight"].T + w["cls.predictions.transform.dense.bias"])
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    x = (x - mu) / np.sqrt(var + 1e-12) * w["cls.predictions.transform.LayerNorm.weight"] + \
        w["cls.predictions.transform.LayerNorm.bias"]
    return {"logits": x @ w["bert.embeddings.word_embeddings.weight"].T + w["cls.predictions.bias"]}


def check_documented(spec, path, cases):
    """The worst |numpy - transformers| over the arrays the numpy computation gives."""
    worst = 0.0
    for c in cases:
        if spec["family"] in ("llama", "qwen2", "qwen3"):
            got = documented_llama(path, c["inputIds"])
        elif spec["family"] == "gpt2":
            got = documented_gpt2_head(path, c)
        else:
            got = documented_bert(path, c)
        for k, v in got.items():
            worst = max(worst, float(np.max(np.abs(v - c[k]))))
    return worst


# ---- The folders ----

def llama_config(tok, rope_parameters, max_positions, **extra):
    return LlamaConfig(vocab_size=len(tok), hidden_size=D, intermediate_size=FFN, num_hidden_layers=LAYERS,
                       num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, head_dim=D // HEADS,
                       max_position_embeddings=max_positions, rope_parameters=rope_parameters, rms_norm_eps=1e-5,
                       tie_word_embeddings=False, attention_bias=False, mlp_bias=False, bos_token_id=tok.bos_token_id,
                       eos_token_id=tok.eos_token_id, architectures=["LlamaForCausalLM"], dtype=torch.bfloat16,
                       attn_implementation="eager", **extra)


# Llama 3.1's factors (8, 1, 4); original_max_position_embeddings 256 (Llama 3.1: 8192) so that the 4 frequencies
# of head size 8 fall in all three bands: wavelength 2π (< 256/4: kept), 2π·500000^(1/4) ≈ 167 (between 64 and 256:
# smoothed), ≈ 4443 and ≈ 118,000 (> 256: divided by 8). transformers warns unless max_position_embeddings is larger
# than the original: 2048 (= 8 × 256).
LLAMA3_ROPE = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 256}
LLAMA3_MAX_POSITIONS = 2048
# Qwen3's head width is its own key (Qwen3-0.6B: 128 with hidden 1024 and 16 heads): here twice hidden / heads, so
# that q_proj is [64, 32], o_proj [32, 64] and an implementation that takes hidden / heads fails to load it.
QWEN3_HEAD_DIM = 2 * D // HEADS

# eos_beta: bias_eos's beta (chosen so that eos_text stops early while SENTENCE and SHORT do not within 20 new
# tokens: asserted by the generate cases); proc_text: the prompt of the no_repeat_ngram_size and repetition_penalty
# cases (one where each changes a greedy choice, asserted).
SPECS = {
    "hf-qwen2": dict(family="qwen2", causal=True, readable="bytes", seed=54, eos_beta=1.0, eos_text="venom",
                     proc_text=SHORT),
    "hf-qwen3": dict(family="qwen3", causal=True, readable="bytes", seed=61, eos_beta=2.0, eos_text="用毒",
                     proc_text=SHORT),
    "hf-llama": dict(family="llama", causal=True, readable="spm", seed=42, eos_beta=1.0, eos_text="蛇会被毒死吗？",
                     proc_text=SENTENCE),
    "hf-llama-rope-scaling": dict(family="llama", causal=True, readable="spm", seed=42, eos_beta=1.0,
                                  eos_text=None, proc_text=SHORT),
    "hf-gpt2-lm": dict(family="gpt2", causal=True, readable="bytes", seed=59, eos_beta=2.5, eos_text="用毒",
                       proc_text=SHORT),
    "hf-bert-mlm": dict(family="bert", causal=False, readable="wordpiece", seed=55),
}


def build(folder):
    """(tokenizer, model in float64 with redrawn parameters, GenerationConfig or None, save dtype)."""
    spec = SPECS[folder]
    fam = spec["family"]
    if fam == "qwen2":
        tok = qwen2_tokenizer()
        eot, im_end = tok.convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>"])
        # Qwen2.5-Instruct's fields: config.json bos <|endoftext|>, eos <|im_end|>; generation_config.json eos both.
        config = Qwen2Config(vocab_size=len(tok), hidden_size=D, intermediate_size=FFN, num_hidden_layers=LAYERS,
                             num_attention_heads=HEADS, num_key_value_heads=KV_HEADS,
                             max_position_embeddings=MAX_POSITIONS, rope_parameters={"rope_type": "default",
                                                                                     "rope_theta": 10000.0},
                             rms_norm_eps=1e-6, tie_word_embeddings=True, bos_token_id=eot, eos_token_id=im_end,
                             architectures=["Qwen2ForCausalLM"], attn_implementation="eager")
        model = Qwen2ForCausalLM(config)
        gen = GenerationConfig(bos_token_id=eot, pad_token_id=eot, eos_token_id=[im_end, eot], do_sample=False)
        eos_biased, dtype = eot, torch.float32
    elif fam == "qwen3":
        tok = qwen2_tokenizer()
        eot, im_end = tok.convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>"])
        # Qwen3-0.6B's fields: config.json bos <|endoftext|>, eos <|im_end|>, head_dim written (not hidden / heads),
        # rope_theta 1e6, tied, bfloat16; generation_config.json eos both (the Hub's samples: here greedy).
        config = Qwen3Config(vocab_size=len(tok), hidden_size=D, intermediate_size=FFN, num_hidden_layers=LAYERS,
                             num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, head_dim=QWEN3_HEAD_DIM,
                             max_position_embeddings=MAX_POSITIONS, rope_parameters={"rope_type": "default",
                                                                                     "rope_theta": 1000000.0},
                             rms_norm_eps=1e-6, tie_word_embeddings=True, attention_bias=False, bos_token_id=eot,
                             eos_token_id=im_end, architectures=["Qwen3ForCausalLM"], dtype=torch.bfloat16,
                             attn_implementation="eager")
        model = Qwen3ForCausalLM(config)
        gen = GenerationConfig(bos_token_id=eot, pad_token_id=eot, eos_token_id=[im_end, eot], do_sample=False)
        eos_biased, dtype = eot, torch.bfloat16
    elif fam == "llama":
        tok = llama_tokenizer()
        scaled = folder.endswith("rope-scaling")
        rope = LLAMA3_ROPE if scaled else {"rope_type": "default", "rope_theta": 500000.0}
        model = LlamaForCausalLM(llama_config(tok, rope, LLAMA3_MAX_POSITIONS if scaled else MAX_POSITIONS))
        gen = GenerationConfig(bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=0,
                               do_sample=False, max_length=LLAMA_MAX_LENGTH)
        eos_biased, dtype = tok.eos_token_id, torch.bfloat16
    elif fam == "gpt2":
        tok = gpt2_tokenizer()
        eot = tok.eos_token_id
        config = GPT2Config(vocab_size=len(tok), n_embd=D, n_layer=LAYERS, n_head=HEADS, n_positions=MAX_POSITIONS,
                            bos_token_id=eot, eos_token_id=eot, architectures=["GPT2LMHeadModel"],
                            attn_implementation="eager")
        model = GPT2LMHeadModel(config)
        gen = GenerationConfig(bos_token_id=eot, eos_token_id=eot)
        eos_biased, dtype = eot, torch.float32
    else:
        tok = bert_tokenizer()
        config = BertConfig(vocab_size=len(tok), hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                            intermediate_size=FFN, max_position_embeddings=MAX_POSITIONS, pad_token_id=tok.pad_token_id,
                            hidden_act="gelu", architectures=["BertForMaskedLM"], attn_implementation="eager")
        model = BertForMaskedLM(config)
        gen, eos_biased, dtype = None, None, torch.float32
    model = model.to(torch.float64).eval()
    redraw(model, spec["seed"], fam)
    return tok, model, gen, eos_biased, dtype


LLAMA_MAX_LENGTH = 32


def make(folder):
    spec = dict(SPECS[folder], folder=folder)
    path = os.path.join(OUT_DIR, folder)
    tok, model, gen, eos_biased, dtype = build(folder)
    if spec.get("eos_beta"):
        bias_eos(model, tok, eos_biased, spec["eos_beta"])
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    tok = save_tokenizer(tok, path)
    if gen is not None:
        model.generation_config = gen
    # The file holds float32 (Llama, Qwen3: bfloat16); the reference runs in float64 on exactly those values.
    model.to(dtype).save_pretrained(path, safe_serialization=True)
    saved = {k: v.clone() for k, v in model.state_dict().items()}
    model = type(model).from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
    for k, v in model.state_dict().items():
        assert torch.equal(v, saved[k].double()), k
    m32 = copy.deepcopy(model).float()

    fam = spec["family"]
    if fam == "qwen3":
        # redraw's norm rule reaches q_norm and k_norm (transformers starts them at ones, which would hide an
        # implementation that skips them or swaps them), and they are in the file.
        head_norms = [k for k in saved if k.endswith((".q_norm.weight", ".k_norm.weight"))]
        assert len(head_norms) == 2 * LAYERS and set(head_norms) <= set(tensor_names(folder)), head_norms
        for k in head_norms:
            assert saved[k].shape == (QWEN3_HEAD_DIM,) and not torch.all(saved[k] == 1), k
    word = lambda t: tok.convert_tokens_to_ids(t)
    if fam == "bert":
        du, she = word("毒"), word("蛇")
        repeated = [tok.cls_token_id, du, du, du, du, she, du, tok.sep_token_id]
    elif fam == "llama":
        du, she = word("毒"), word("蛇")
        repeated = [tok.bos_token_id, du, du, du, du, she, du, du]
    else:  # byte-level: 毒 is one piece; <|endoftext|> inside
        du = tok(SENTENCE).input_ids[3]
        assert tok.convert_ids_to_tokens(du) == "æ¯Ĵ"
        repeated = [du, du, du, du, tok.eos_token_id, du, du]
    inputs = [("sentence", SENTENCE), ("english", SHORT), ("repeated_ids", {"inputIds": repeated})]
    masked = []
    if fam == "bert":
        inputs += [("mask_one", "用毒[MASK]毒蛇，毒蛇会不会被毒毒死"), ("mask_two", "用[MASK]毒毒蛇，毒蛇会不会被毒[MASK]死")]
    cases = [forward_case(spec, model, m32, tok, name, inp) for name, inp in inputs]
    if fam == "bert":
        masked = masked_cases(model, m32, tok)
    documented = check_documented(spec, path, cases)
    assert documented < (1e-5 if fam in ("llama", "qwen2", "qwen3") else 1e-9), (folder, documented)
    gen_cases = generate_cases(spec, model, m32, tok) if gen is not None else []

    V = model.config.vocab_size
    summary = {"modelType": model.config.model_type, "numLayers": LAYERS, "numHeads": HEADS, "hiddenSize": D,
               "vocabSize": V, "maxPositions": model.config.max_position_embeddings,
               "maxLength": model.config.max_position_embeddings}
    if fam == "qwen3":  # its heads are not hidden / heads wide
        summary.update(headDim=model.config.head_dim, numKeyValueHeads=model.config.num_key_value_heads)
    qwen_specials = lambda: {"eos": tok.eos_token_id, "pad": tok.pad_token_id, "imStart": word("<|im_start|>"),
                             "imEnd": word("<|im_end|>")}
    specials = {"qwen2": qwen_specials, "qwen3": qwen_specials,
                "llama": lambda: {"unk": tok.unk_token_id, "bos": tok.bos_token_id, "eos": tok.eos_token_id},
                "gpt2": lambda: {"bos": tok.bos_token_id, "eos": tok.eos_token_id},
                "bert": lambda: {"cls": tok.cls_token_id, "sep": tok.sep_token_id, "pad": tok.pad_token_id,
                                 "unk": tok.unk_token_id, "mask": tok.mask_token_id}}[fam]()
    in_float32 = ("Qwen3 code: RMSNorm (q_norm and k_norm too)" if fam == "qwen3" else "Llama/Qwen2 code: RMSNorm")
    source = ("Hugging Face transformers %s (%s.from_pretrained of this folder, eager attention) on torch %s, float64 "
              "(%s, softmax and RoPE angles in float32); tokenizer %s over a vocabulary "
              "trained by tokenizers %s; parameters redrawn from torch.Generator seed %d%s, saved as %s by "
              "save_pretrained" % (transformers.__version__, type(model).__name__, torch.__version__, in_float32,
                                   type(tok).__name__, tokenizers.__version__, spec["seed"],
                                   " (eos row + %.1f × the unit mean final hidden state)" % spec["eos_beta"]
                                   if spec.get("eos_beta") else "", "bfloat16" if dtype == torch.bfloat16
                                   else "float32"))
    head = {"source": source, "config": summary, "tolerance": TOLERANCE, "specialTokens": specials}
    if gen is not None:
        head["generationConfig"] = json.load(open(os.path.join(path, "generation_config.json")))
    sections = {"cases": cases}
    if masked:
        sections["masked"] = masked
    if gen_cases:
        sections["generate"] = gen_cases
    for c in cases:
        c.pop("peak")
    reference = os.path.join(path, "reference.json")
    write_sections(reference, head, sections)
    assert os.path.getsize(reference) < 1_000_000, (reference, os.path.getsize(reference))
    print(folder, "forward", [(c["name"], len(c["inputIds"]), round(c["f32use"], 3)) for c in cases],
          "documented %.1e" % documented, flush=True)
    for c in gen_cases:
        print("   ", c["name"], c["options"], c["newTokens"], c["stop"], repr(c["decodedNew"]), flush=True)
    return {"spec": spec, "path": path, "tok": tok, "model": model, "cases": cases, "masked": masked,
            "generate": gen_cases, "documented": documented}


def masked_cases(model, m32, tok):
    """[MASK] on each 毒 of the sentence once: BertForMaskedLM's logits [L, V] (and the argmax at the mask)."""
    ids = tok(SENTENCE).input_ids
    du = tok.convert_tokens_to_ids("毒")
    out = []
    for k, i in enumerate(p for p, t in enumerate(ids) if t == du):
        x = ids[:i] + [tok.mask_token_id] + ids[i + 1:]
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([x])).logits[0].numpy()
            l32 = m32(input_ids=torch.tensor([x])).logits[0].double().numpy()
        use = budget_use({"logits": logits}, {"logits": l32})
        assert use < 0.5
        text = "".join("[MASK]" if j == i else tok.convert_ids_to_tokens(t) for j, t in enumerate(x[1:-1], 1))
        out.append({"name": "mask_du_%d" % (k + 1), "input": text, "inputIds": x, "maskPositions": [i],
                    "tokens": tok.convert_ids_to_tokens(x), "predicted": [int(np.argmax(logits[i]))],
                    "logits": logits, "f32use": use})
        assert tok(text).input_ids == x
    assert len(out) == 6
    return out


def greedy(model, ids, n):
    with torch.no_grad():
        x = torch.tensor([ids])
        return model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=n)[0].tolist()


def generate_cases(spec, model, m32, tok):
    """Greedy search (generation_config.json has do_sample false, no num_beams): the cases and how each must stop."""
    eos_text = spec["eos_text"]
    specs = [("default", SHORT, {}),
             ("max_new_tokens_8", SENTENCE, {"max_new_tokens": 8}),
             ("max_new_tokens_20", SHORT, {"max_new_tokens": 20}),
             ("no_repeat_ngram_size_2", spec["proc_text"], {"max_new_tokens": 20, "no_repeat_ngram_size": 2}),
             ("repetition_penalty_1.3", spec["proc_text"], {"max_new_tokens": 20, "repetition_penalty": 1.3})]
    if eos_text:
        specs.insert(3, ("eos", eos_text, {"max_new_tokens": 20}))
    cases = [generate_case(spec, model, m32, tok, n, p, o) for n, p, o in specs]
    for c in cases:
        if "no_repeat_ngram_size" in c["options"] or "repetition_penalty" in c["options"]:
            plain = greedy(model, c["inputIds"], c["options"]["max_new_tokens"])
            at = next(i for i, (a, b) in enumerate(zip(c["sequence"] + [-1], plain + [-2])) if a != b)
            assert at < len(c["sequence"]), c["name"]  # the processor changed a choice
            c["differsFromGreedyAt"] = at - len(c["inputIds"])
    by = {c["name"]: c for c in cases}
    for n in ("max_new_tokens_8", "max_new_tokens_20"):
        assert by[n]["stop"] == "maxLength", (spec["folder"], n)
    if eos_text:
        eos_case = by["eos"]
        assert eos_case["stop"] == "eos" and eos_case["newTokens"] <= 12, (spec["folder"], eos_case["newTokens"])
        # min_new_tokens: eos (every id of the list) is -inf until that many tokens are there.
        k = eos_case["newTokens"] + 2
        c = generate_case(spec, model, m32, tok, "min_new_tokens", eos_text, {"max_new_tokens": 20,
                                                                             "min_new_tokens": k})
        assert c["newTokens"] > k - 1 and c["sequence"][:len(eos_case["sequence"]) - 1] == eos_case["sequence"][:-1]
        c["differsFromGreedyAt"] = eos_case["newTokens"] - 1
        cases.append(c)
    return cases


# ---- TRANSFORMERS.md ----

BEGIN, END = "<!-- BEGIN make_decoder_fixtures.py -->", "<!-- END make_decoder_fixtures.py -->"


def files_line(folder):
    path = os.path.join(OUT_DIR, folder)
    return ", ".join("`%s` (%d B)" % (f, os.path.getsize(os.path.join(path, f))) for f in sorted(os.listdir(path)))


def code(x):
    return "`%s`" % str(x).replace("|", "\\|").replace("`", "'")


def tensor_names(folder):
    from safetensors import safe_open
    with safe_open(os.path.join(OUT_DIR, folder, "model.safetensors"), "pt") as f:
        return {k: (f.get_slice(k).get_dtype(), f.get_slice(k).get_shape()) for k in f.keys()}


def names_line(folder):
    """The tensors of model.safetensors, layer 0 for the layers' (layer 1 the same)."""
    names = tensor_names(folder)
    keep = [k for k in sorted(names) if not re.search(r"\.(layers|h|layer)\.[1-9]\d*\.", k)]
    dtype = sorted({v[0] for v in names.values()})
    return "%d tensors, %s: %s" % (len(names), "/".join(dtype), ", ".join(
        "`%s` %s" % (k, list(names[k][1])) for k in keep))


def prompt_of(c):
    return code(c["text"]) if "text" in c else code(c["inputIds"])


def document(results):
    r = results
    tok_q, tok_l, tok_g, tok_b = (r[f]["tok"] for f in ("hf-qwen2", "hf-llama", "hf-gpt2-lm", "hf-bert-mlm"))
    folders = "\n".join("* `%s/`: %s." % (f, files_line(f)) for f in SPECS)
    names = "\n".join("* `%s/`: %s." % (f, names_line(f)) for f in SPECS if f != "hf-llama-rope-scaling")
    cases = "\n".join("* `%s/`: %s." % (f, "; ".join("`%s` (L=%d, f32 use %.0f%%) %s" % (
        c["name"], len(c["inputIds"]), 100 * c["f32use"], code(json.dumps(c["input"], ensure_ascii=False)))
        for c in r[f]["cases"])) for f in SPECS)
    documented = ", ".join("`%s` %.1e" % (f, r[f]["documented"]) for f in SPECS)
    gen_rows = []
    for f in SPECS:
        for c in r[f]["generate"]:
            new = c["sequence"][len(c["inputIds"]):]
            gen_rows.append("| `%s` | `%s` | %s | %s | %s | %d, %s | %s |" % (
                f, c["name"], prompt_of(c), code(json.dumps(c["options"])), code(new), c["newTokens"],
                "**eos** (%d)" % new[-1] if c["stop"] == "eos" else "max length",
                c.get("differsFromGreedyAt", "")))
    masked_rows = "\n".join("| `%s` | %s | %s | %s |" % (c["name"], code(c["input"]), c["maskPositions"],
                                                        code(tok_b.convert_ids_to_tokens(c["predicted"])))
                            for c in r["hf-bert-mlm"]["masked"])
    gen_json = {f: json.dumps(json.load(open(os.path.join(OUT_DIR, f, "generation_config.json"))), sort_keys=True)
                for f in SPECS if f != "hf-bert-mlm"}
    q_merges = len(tok_q) - 256 - 3
    g_merges = len(tok_g) - 256 - 1
    l_pieces = len(tok_l) - 259
    spec_line = lambda f: "seed %d%s" % (SPECS[f]["seed"], ", eos_beta %.1f, eos prompt %s" % (
        SPECS[f]["eos_beta"], code(SPECS[f]["eos_text"])) if SPECS[f].get("eos_text") else "")
    stops = {f: [(c["name"], c["sequence"][-1]) for c in r[f]["generate"] if c["stop"] == "eos"]
             for f in ("hf-qwen2", "hf-qwen3")}
    eot, im_end = tok_q.convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>"])
    assert {t for _, t in stops["hf-qwen2"]} == {eot, im_end}, stops  # both ids of the list
    # Qwen3 stops on <|endoftext|>, which its generation_config.json's list names and its config.json does not.
    assert {t for _, t in stops["hf-qwen3"]} == {eot}, stops
    qwen_stops = "; ".join("in `%s` %s" % (f, ", ".join("`%s` stops on %d" % st for st in found))
                           for f, found in stops.items())
    # Qwen3 is made with Qwen2's tokenizer (as Qwen3-0.6B's tokenizer_config.json names Qwen2Tokenizer): the same files.
    for name in ("tokenizer.json", "tokenizer_config.json"):
        assert open(os.path.join(OUT_DIR, "hf-qwen2", name), "rb").read() == \
            open(os.path.join(OUT_DIR, "hf-qwen3", name), "rb").read(), name
    q3 = r["hf-qwen3"]["model"].config
    text = DOC.format(
        qwen_stops=qwen_stops, q3_hd=q3.head_dim, q3_q=q3.num_attention_heads * q3.head_dim,
        q3_kv=q3.num_key_value_heads * q3.head_dim, q3_half=q3.head_dim // 2, q3_half_1=q3.head_dim // 2 - 1,
        q3_rope=json.dumps(q3.rope_parameters, sort_keys=True), gen_q3=gen_json["hf-qwen3"],
        transformers=transformers.__version__, torch=torch.__version__, tokenizers=tokenizers.__version__,
        folders=folders, names=names, cases=cases, documented=documented, gen_rows="\n".join(gen_rows),
        masked_rows=masked_rows, tolerance=json.dumps(TOLERANCE), q_merges=q_merges, g_merges=g_merges,
        l_pieces=l_pieces, Vq=len(tok_q), Vl=len(tok_l), Vg=len(tok_g), Vb=len(tok_b),
        gen_q=gen_json["hf-qwen2"], gen_l=gen_json["hf-llama"], gen_g=gen_json["hf-gpt2-lm"],
        eot=tok_q.convert_tokens_to_ids("<|endoftext|>"), im_start=tok_q.convert_tokens_to_ids("<|im_start|>"),
        im_end=tok_q.convert_tokens_to_ids("<|im_end|>"), g_eot=tok_g.eos_token_id, llama_max=LLAMA_MAX_LENGTH,
        seeds="; ".join("`%s` %s" % (f, spec_line(f)) for f in SPECS), bert_vocab=" ".join(
            "`%s`" % t for t in BERT_VOCAB), sentence=SENTENCE, short=SHORT, llama3=json.dumps(LLAMA3_ROPE),
        proc={f: code(SPECS[f].get("proc_text")) for f in SPECS})
    write_section(os.path.join(OUT_DIR, "TRANSFORMERS.md"), BEGIN, END, text)


DOC = """
## Decoders and language-model heads: `hf-qwen2/`, `hf-qwen3/`, `hf-llama/`, `hf-llama-rope-scaling/`, `hf-gpt2-lm/`, `hf-bert-mlm/`

Written by [tests/tools/make_decoder_fixtures.py](../../tools/make_decoder_fixtures.py) (do not edit; this
section is that script's, and the other two scripts keep it). Made by Hugging Face transformers {transformers}
itself on torch {torch}: `Qwen2ForCausalLM`, `Qwen3ForCausalLM`, `LlamaForCausalLM`, `GPT2LMHeadModel`,
`BertForMaskedLM`, their `save_pretrained`, the tokenizers' and `GenerationConfig`'s; vocabularies trained by
tokenizers {tokenizers} and handed to transformers' own tokenizer classes (`Qwen2Tokenizer` for both Qwens,
`LlamaTokenizer`, `GPT2Tokenizer`, `BertTokenizer`: transformers 5 builds each `tokenizer.json` from a vocabulary
and merges; the saved folder loaded back by `AutoTokenizer` gives the same ids, checked). `reference.json`: what
transformers computes for the folder loaded back by `from_pretrained(dtype=float64, attn_implementation="eager")`,
on exactly the saved values (float32; `hf-llama*` and `hf-qwen3`: bfloat16).

{folders}

### Configs (what matters for an implementation)

* `hf-qwen2`: `model_type` `qwen2`, `vocab_size` {Vq}, `hidden_size` 32, 4 heads, `num_key_value_heads` 2
  (grouped-query: query head i uses key/value head i // 2), no `head_dim` key (hidden / heads = 8),
  `intermediate_size` 64, 2 layers, `max_position_embeddings` 64, `rms_norm_eps` 1e-6, `hidden_act` silu,
  `tie_word_embeddings` true (no `lm_head.weight` in the file), `rope_parameters`
  `{{"rope_theta": 10000.0, "rope_type": "default"}}` — transformers 5 writes no top-level `rope_theta` (4.x did;
  Hub files have it) —, `use_sliding_window` false (`sliding_window` null, `max_window_layers` 28: unused),
  `layer_types` full_attention ×2; q/k/v projections have biases, o_proj none. `bos_token_id` {eot}
  (`<|endoftext|>`), `eos_token_id` {im_end} (`<|im_end|>`), as Qwen2.5-Instruct's config.json; its
  `generation_config.json` `{gen_q}` stops on either ({im_end} first, then {eot}, as Qwen's list).
* `hf-qwen3`: `model_type` `qwen3`, `hf-qwen2`'s tokenizer (`vocab_size` {Vq}), `hidden_size` 32, 4 heads,
  `num_key_value_heads` 2, **`head_dim` {q3_hd}** (written, and not hidden / heads = 8, as Qwen3-0.6B's 128 is not
  1024 / 16): q_proj [{q3_q}, 32], k_proj and v_proj [{q3_kv}, 32], o_proj [32, {q3_q}]; **`q_norm`, `k_norm`** per
  layer ([{q3_hd}] each, below); `intermediate_size` 64, 2 layers, `max_position_embeddings` 64, `rms_norm_eps` 1e-6,
  `hidden_act` silu, `tie_word_embeddings` true (no `lm_head.weight` in the file), `attention_bias` false (in
  Qwen3 it would give q, k, v **and** o_proj biases; Qwen3's Hub checkpoints have none), `rope_parameters`
  `{q3_rope}` (Qwen3's theta), `use_sliding_window` false, `layer_types` full_attention ×2, `dtype` `bfloat16`;
  `bos_token_id` {eot}, `eos_token_id` {im_end}, as Qwen3-0.6B's config.json; `generation_config.json` `{gen_q3}`
  (Qwen3-0.6B's eos list and pad; its `do_sample` true with temperature 0.6, top_k 20, top_p 0.95 left out: greedy
  is what is referenced).
* `hf-llama`: `model_type` `llama`, `vocab_size` {Vl}, 32 / 4 heads / `num_key_value_heads` 2, `head_dim` 8
  (written), `intermediate_size` 64, `rms_norm_eps` 1e-5, `attention_bias` false, `mlp_bias` false,
  `tie_word_embeddings` false (`lm_head.weight` in the file), `rope_parameters`
  `{{"rope_theta": 500000.0, "rope_type": "default"}}`, `pretraining_tp` 1, `dtype` `bfloat16` (transformers 5
  writes `dtype`; Hub files of 4.x write `torch_dtype`), `bos_token_id` 1, `eos_token_id` 2;
  `generation_config.json` `{gen_l}` (`max_length` {llama_max}: counts the prompt).
* `hf-llama-rope-scaling`: `hf-llama`'s weights, tokenizer and generation config; `rope_parameters`
  `{llama3}` (Llama 3.1's form; transformers 5 accepts `rope_scaling` and writes it as `rope_parameters`,
  `rope_theta` inside) and `max_position_embeddings` 2048 (transformers warns unless it is larger than
  `original_max_position_embeddings`).
* `hf-gpt2-lm`: GPT-2 as `gpt2/` (`n_embd` 32, 4 heads, 2 layers, `n_positions` 64, `gelu_new`,
  `layer_norm_epsilon` 1e-5), `vocab_size` {Vg}, `tie_word_embeddings` true, `bos_token_id` = `eos_token_id` =
  {g_eot}; `generation_config.json` `{gen_g}`.
* `hf-bert-mlm`: BERT (`hidden_act` gelu = erf, `layer_norm_eps` 1e-12, `type_vocab_size` 2,
  `max_position_embeddings` 64), `vocab_size` {Vb}, `tie_word_embeddings` true, `architectures`
  `["BertForMaskedLM"]`; no pooler, no generation config.

### Tensors (model.safetensors, written by save_pretrained)

{names}

Not in any file: the tied copies (`lm_head.weight` of Qwen2, Qwen3 and GPT-2, `cls.predictions.decoder.weight` and
`cls.predictions.decoder.bias` of BERT: the decoder is `bert.embeddings.word_embeddings.weight`, its bias
`cls.predictions.bias`), RoPE's `inv_freq` (computed at load), GPT-2's `attn.bias` masks.

### What transformers computes

Llama, Qwen2 and Qwen3 (batch 1, no padding, positions 0…L-1):

* `h = E[ids]` (`model.embed_tokens.weight`; no scaling, no position embedding);
* each layer: `x = RMSNorm(h, input_layernorm)`, `RMSNorm(x, w) = x / sqrt(mean(x²) + eps) · w`;
  `q = x·Wqᵀ (+ bq)` [L, 4·8], `k = x·Wkᵀ (+ bk)`, `v = x·Wvᵀ (+ bv)` [L, 2·8] (biases: Qwen2 only); RoPE on q
  and k per head, **rotate-half** (not interleaved): with `θ_j = theta^(-2j/8)` for j = 0…3 and angle `p·θ_j`,
  `q'[j] = q[j]·cos − q[j+4]·sin`, `q'[j+4] = q[j+4]·cos + q[j]·sin`; query head i attends with key/value head
  i // 2; `softmax(q'·k'ᵀ/√8)` causal; `h = h + (weights·v)·Woᵀ` (`o_proj`, no bias); `x =
  RMSNorm(h, post_attention_layernorm)`; `h = h + down(silu(gate(x)) ⊙ up(x))` (`mlp.{{gate,up,down}}_proj`, no
  biases);
* `model.norm`; logits = that · `lm_head.weight`ᵀ (Llama) or · `E`ᵀ (Qwen2, Qwen3, tied). No logits bias.
* Qwen3 (`hf-qwen3`) differs in two places. Its heads are `head_dim` = {q3_hd} wide, whatever hidden / heads is:
  q [L, 4·{q3_hd}], k and v [L, 2·{q3_hd}], `θ_j = theta^(-2j/{q3_hd})` for j = 0…{q3_half_1}, the rotate-half pairs
  j and j+{q3_half}, `softmax(q'·k'ᵀ/√{q3_hd})`, and o_proj takes the {q3_q} values of the 4 heads back to 32. And before
  RoPE, each head's {q3_hd} values of q are RMS-normalised with `self_attn.q_norm.weight` [{q3_hd}], those of k with
  `self_attn.k_norm.weight` (one weight vector for every head; `rms_norm_eps`): `Qwen3Attention` computes
  `q_norm(q_proj(x).view(L, heads, head_dim))`, then RoPE, then the attention.
* llama3 rope (`hf-llama-rope-scaling`, `_compute_llama3_parameters`): with `old` = original_max_position_embeddings
  (256), wavelength `λ = 2π/θ_j`: λ < old/high_freq_factor (64): θ_j kept; λ > old/low_freq_factor (256): θ_j /
  factor (8); between: `s = (old/λ − low)/(high − low)`, `θ_j·((1 − s)/factor + s)`. The four frequencies of head
  size 8 (λ ≈ 6.3, 167, 4443, 118,000) fall in all three bands. Attention scaling 1.
* transformers' code computes RMSNorm's normalisation (`x / sqrt(mean(x²)+eps)`, before the weight; Qwen3's
  `q_norm` and `k_norm` too), the softmax and
  the RoPE angles and their cos/sin in **float32**, even in a float64 model; everything else is float64 here. So
  these references carry float32 rounding at those points: far inside the tolerance, but a float64
  implementation differs from them by ~1e-6.

GPT-2: as `gpt2/` (README.md); logits = `ln_f` output · `wte`ᵀ. BERT: as `bert-zh/`; the MLM head on the last
hidden state: `LayerNorm(gelu(h·denseᵀ + b), eps 1e-12)·Eᵀ + cls.predictions.bias` (`cls.predictions.transform.*`).

The script checks this description: numpy in float64 from `model.safetensors` alone (bf16 values widened) reproduces
every forward case (hidden states, attention, logits; GPT-2 and BERT: the head's logits from the reference's last
hidden state) to: {documented} (Llama/Qwen2/Qwen3: the float32 steps above; asserted < 1e-5). For `hf-qwen3` that
numpy computation reads `head_dim` from config.json and applies `q_norm`/`k_norm` as described, so it checks
both against transformers.

Parameters: redrawn from `torch.Generator` in float64, sorted names: norm weights 1 + 0.2·n (Qwen3's `q_norm` and
`k_norm` too, which transformers starts at ones: asserted not ones in the file), biases 0.2·n, token
embeddings 0.7·n, GPT-2's `wpe` and BERT's position/type embeddings 0.3·n, every other matrix 1.6/√in·n; then
(decoders) **eos made to appear**: random weights never emit eos, so `eos_beta` × the unit mean of the final hidden
states (after the final norm, over every position of the first 8 corpus texts) is added to the LM head's row of
the eos token (`<|endoftext|>` for Qwen2, Qwen3 and GPT-2 — in the tied embedding, so also its input embedding
—; `</s>` in Llama's `lm_head.weight`). `hf-llama*` and `hf-qwen3` are then rounded to bfloat16. Seeds: {seeds}.

### Tokenizers

* `hf-qwen2`: Qwen2's: `NFC`, `Split` on Qwen's regex (`(?i:'s|…)|[^\\r\\n\\p{{L}}\\p{{N}}]?\\p{{L}}+|\\p{{N}}|…`:
  `，毒蛇会不会被毒毒死` is one chunk, the comma in front of the letters), `ByteLevel` (no prefix space, no regex),
  BPE without unk; ids 0–255 the byte characters in GPT-2's order, {q_merges} merges, then the added special tokens
  `<|endoftext|>` {eot}, `<|im_start|>` {im_start}, `<|im_end|>` {im_end}; nothing added around a text (no bos).
  `tokenizer_config.json`: `eos_token` = `pad_token` = `<|endoftext|>`, `bos_token` = `unk_token` = null,
  `extra_special_tokens` the other two.
* `hf-qwen3`: the same tokenizer (Qwen3-0.6B's `tokenizer_config.json` names `Qwen2Tokenizer`): its
  `tokenizer.json` and `tokenizer_config.json` are `hf-qwen2`'s, byte for byte (checked).
* `hf-llama`, `hf-llama-rope-scaling`: **Llama 2's layout** (SentencePiece BPE with byte fallback, not Llama 3's
  byte-level one) as transformers 5's `LlamaTokenizer` writes it: no normalizer, `Metaspace` (`▁`,
  `prepend_scheme` first, `split` false), BPE with `byte_fallback` and `fuse_unk`; `<unk>` 0, `<s>` 1, `</s>` 2,
  `<0x00>`…`<0xFF>` 3–258, then {l_pieces} BPE pieces (merges in order, then single characters), trained without
  `死` and `，` so those fall back to 3 byte pieces each; `TemplateProcessing` `<s> $A`; decoder Replace `▁`→` `,
  ByteFallback, Fuse, Strip one leading space. (The Hub's original Llama-2 tokenizer.json has the older form:
  normalizer Prepend `▁` + Replace ` `→`▁` and no pre-tokenizer.)
* `hf-gpt2-lm`: GPT-2's: `ByteLevel` (GPT-2's regex, no prefix space), ids 0–255 the byte characters, {g_merges}
  merges, `<|endoftext|>` {g_eot}; nothing added around a text.
* `hf-bert-mlm`: `BertTokenizer`'s (BertNormalizer lowercasing, Chinese characters split, BertPreTokenizer,
  WordPiece `##`, `[CLS] $A [SEP]`); vocabulary: {bert_vocab}. `[MASK]` in a text is the mask token.
* `readable` (README.md's rule): byte-level pieces as there; Llama's `<0xHH>` pieces by the same rule over their
  bytes (`死₁ 死₂ 死₃`), its other pieces as they are (`▁`, `▁pois`), as the SentencePiece folders show theirs.

### reference.json (additions to README.md's format)

```
{{ "source", "config": {{modelType, numLayers, numHeads, hiddenSize, vocabSize, maxPositions, maxLength,
             headDim, numKeyValueHeads (hf-qwen3 only: its heads are not hiddenSize / numHeads wide)}},
  "tolerance", "specialTokens", "generationConfig": generation_config.json's content (decoders),
  "cases": [{{name, input, inputIds, tokenTypeIds, positionIds, tokens, readable, lastHiddenState, hiddenStates,
             attention, logits, f32use}}],
  "masked": [{{name, input, inputIds, maskPositions, tokens, predicted, logits, f32use}}]       (hf-bert-mlm),
  "generate": [{{name, text?, inputIds, options, sequence, newTokens, stop, decoded, decodedNew, stepScores,
                stepLogits, differsFromGreedyAt?}}]                                          (decoders) }}
```

* `hiddenStates` [3, L, 32]: decoders: the embeddings `E[ids]` (GPT-2: `wte + wpe`), layer 0's output, and the
  **final norm** of layer 1's output (`model.norm` / `ln_f`; layer 1's raw output is not there) = `lastHiddenState`,
  the LM head's input. BERT: as `bert-zh/`. `attention` [2, 4, L, L] (per query head; 0 above the diagonal in the
  decoders). `logits` [L, vocab]: every position's (decoders: position i predicts token i+1; BERT: the MLM head at
  every position). `f32use`: the largest fraction of the tolerance the same model in torch float32 uses.
* Tolerance `{tolerance}`: logits `|got − want| <= logitsAbs + logitsRel·|want|`; scores (`stepScores`,
  `stepLogits`) `|got − want| <= scoreAbs`; the rest as README.md.
* `specialTokens`: Qwen2 and Qwen3 `{{eos, pad, imStart, imEnd}}`, Llama `{{unk, bos, eos}}`, GPT-2 `{{bos, eos}}`, BERT
  `{{cls, sep, pad, unk, mask}}`.

Cases (every head has a row that is not uniform: a key at least 1.25 times its uniform share):

{cases}

`masked` (`hf-bert-mlm`): the sentence with `[MASK]` on each `毒` once (the ids are the tokenizer's for that text);
`predicted`: the argmax of the logits at the mask.

| case | input | mask position | predicted |
|---|---|---|---|
{masked_rows}

### Generation (greedy)

`generate` cases: `model.generate([inputIds], attention_mask=ones, **options, output_scores=True,
output_logits=True, return_dict_in_generate=True)` with the folder's generation config (`do_sample` false, no
`num_beams`: greedy). Sampling is not referenced. The rules that give these sequences (transformers 5.12):

* `sequence` = the prompt then the new tokens (`newTokens` of them); each step appends the argmax of the processed
  scores of the last position. Generation takes the logits as **float32** (`outputs.logits[:, -1].to(float32)`),
  even in a float64 model: `stepLogits` (the raw logit of each chosen token) and `stepScores` (its processed score)
  are float32 values; torch float32 finds the same sequences, and no step is a near tie (top two ≥ 1e-3 apart).
* Length: `max_new_tokens` when given; else generation_config.json's `max_length` (Llama: {llama_max}, the prompt
  included); else (Qwen2, Qwen3, GPT-2: neither set) 20 new tokens, and at most `max_position_embeddings` in all.
* Stop: after any id of `eos_token_id` (generation_config.json's; Qwen2's and Qwen3's is the list [{im_end}, {eot}],
  and config.json names only {im_end}): {qwen_stops}.
* Processors, in transformers' order, each only when asked: `repetition_penalty` (every id present anywhere in the
  sequence so far, **the prompt included**, once however often: its raw logit / 1.3 if positive, × 1.3 if not;
  transformers applies it to decoder-only models — checked against `stepLogits` in the script),
  `no_repeat_ngram_size` 2 (a token that would complete a bigram already in the sequence, the prompt included →
  −inf), `min_new_tokens` (every eos id → −inf while fewer than that many new tokens). `differsFromGreedyAt`:
  the first new-token index where the case departs from plain greedy with the same `max_new_tokens` (asserted:
  the option changed a choice).
* `stop`: `eos` (the last token is an eos id) or `maxLength`. `decoded` = `decode(sequence,
  skip_special_tokens=True)`, `decodedNew` = the same of the new tokens alone (Llama's decoder strips one leading
  space of what it decodes; invalid UTF-8 becomes U+FFFD). Random weights make byte soup: the ids are the test.
* Prompts of the processor cases: Qwen2 {proc[hf-qwen2]}, Qwen3 {proc[hf-qwen3]}, Llama {proc[hf-llama]}, rope scaling
  {proc[hf-llama-rope-scaling]}, GPT-2 {proc[hf-gpt2-lm]}. Not referenced: the `cached` consistency (one token at a
  time against the whole sequence) is the engine's own test.

| folder | case | prompt | options | new tokens | length, stop | differs at |
|---|---|---|---|---|---|---|
{gen_rows}
"""


def main():
    torch.manual_seed(0)
    only = sys.argv[1:] or list(SPECS)
    unknown = [f for f in only if f not in SPECS]
    if unknown:
        sys.exit("unknown folder %s: expected some of %s" % (", ".join(unknown), ", ".join(SPECS)))
    results = {folder: make(folder) for folder in only}
    if not sys.argv[1:]:
        document(results)


if __name__ == "__main__":
    main()
