#!/usr/bin/python3
"""Writes tests/fixtures/models/<name>/: tiny random checkpoints laid out like
folders downloaded from the Hugging Face Hub (config.json, safetensors
weights, tokenizer files), each with a reference.json of the hidden states and
attention weights of a few inputs, for the tests of the checkpoint loader.
Needs Debian's python3-torch and python3-numpy (apt-get install -y
--no-install-recommends python3-torch python3-numpy), hence /usr/bin/python3:

    /usr/bin/python3 tests/tools/make_model_fixtures.py

Only this script needs torch; the tests read the files it writes. It also
writes tests/fixtures/models/README.md (the format, the folders, the rules).

Nothing here uses the project's code or the `transformers`/`tokenizers`
packages:
* the safetensors files are written (and read back, with the checks of a
  small independent reader) with `struct`;
* the token ids come from the script's own WordPiece (BERT basic tokenization,
  then greedy longest-match-first) and byte-level BPE (GPT-2 pre-split,
  bytes_to_unicode, merges by rank);
* the references come from hand-written PyTorch modules whose parameter names
  are the Hugging Face ones (BertModel, GPT2Model), run in float64 on the
  weights as read back from the file (so after rounding to F16/BF16 for those
  folders). Layer 0 of each model is checked against PyTorch's own modules:
  its attention against torch.nn.MultiheadAttention (need_weights=True,
  average_attn_weights=False), the whole layer against
  torch.nn.TransformerEncoderLayer (post-LN for BERT, norm_first for GPT-2).
The folders' total size is asserted to stay under 2 MB.
"""
import copy
import json
import math
import os
import shutil
import struct
import unicodedata

import numpy as np
import torch

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
DEBIAN_VERSION = "1.13.1+dfsg-4"

D, NUM_HEADS, INTERMEDIATE, NUM_LAYERS, MAX_POSITIONS = 32, 4, 64, 2, 64
DK = D // NUM_HEADS
TOLERANCE = {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5}
F64 = torch.float64

SENTENCE = "用毒毒毒蛇，毒蛇会不会被毒毒死"
SENTENCE_2 = "蛇会被毒死吗？"


# ----------------------------------------------------------------------------
# Number formats of the stored tensors

def round_f16(a):
    """float32 -> float16, round to nearest even (numpy's conversion)."""
    return np.asarray(a, dtype=np.float32).astype(np.float16)


def bf16_bits(a):
    """float32 -> bfloat16 bits: the upper 16 bits, rounded to nearest even."""
    shape = np.shape(a)
    a = np.atleast_1d(np.asarray(a, dtype=np.float32))
    assert not np.isnan(a).any()
    u = a.view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    bits = ((u + np.uint64(0x7FFF) + ((u >> sixteen) & np.uint64(1))) >> sixteen).astype(np.uint16)
    return bits.reshape(shape)


def bf16_to_f32(bits):
    bits = np.asarray(bits, dtype=np.uint16)
    return (np.atleast_1d(bits).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(bits.shape)


def stored(array, dtype):
    """The numpy array holding the stored bytes of a float32/int64 array in `dtype`."""
    if dtype == "F32":
        return np.asarray(array, dtype="<f4")
    if dtype == "F16":
        return round_f16(array).astype("<f2")
    if dtype == "BF16":
        return bf16_bits(array).astype("<u2")
    if dtype == "I64":
        return np.asarray(array, dtype="<i8")
    raise ValueError(dtype)


# ----------------------------------------------------------------------------
# safetensors: writer and an independent little reader

DTYPE_SIZE = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8}


def write_safetensors(path, tensors, padded):
    """tensors: list of (name, dtype, float32/int64 numpy array). Returns the header length N."""
    header = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name, dtype, array in tensors:
        data = np.ascontiguousarray(stored(array, dtype)).tobytes()
        assert len(data) == DTYPE_SIZE[dtype] * int(np.prod(np.shape(array), dtype=np.int64))
        header[name] = {"dtype": dtype, "shape": [int(s) for s in np.shape(array)], "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"))
    if padded:
        text += " " * ((-(8 + len(text))) % 8)
        assert (8 + len(text)) % 8 == 0
    else:
        if (8 + len(text)) % 4 == 0:
            text = text.replace('{"format":"pt"}', '{"format": "pt"}', 1)
        assert (8 + len(text)) % 4 != 0, "unpadded header must leave the data misaligned"
    raw = text.encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for data in blobs:
            f.write(data)
    return len(raw)


def read_safetensors(path):
    """Parses a safetensors file with its own checks; returns ({name: float64/int64 numpy array}, dtypes, N)."""
    blob = open(path, "rb").read()
    assert len(blob) >= 8
    (n,) = struct.unpack("<Q", blob[:8])
    assert 8 + n <= len(blob)
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    meta = header.pop("__metadata__", None)
    assert meta is None or all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items())
    spans = sorted((v["data_offsets"][0], v["data_offsets"][1], k) for k, v in header.items())
    position = 0
    for begin, end, name in spans:
        assert begin == position, ("offsets not contiguous", name, begin, position)
        assert end >= begin
        position = end
    assert position == len(data), ("data segment length", position, len(data))
    out, dtypes = {}, {}
    for name, v in header.items():
        begin, end = v["data_offsets"]
        shape = tuple(v["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        assert end - begin == count * DTYPE_SIZE[v["dtype"]], name
        chunk = data[begin:end]
        if v["dtype"] == "F32":
            a = np.frombuffer(chunk, dtype="<f4").astype(np.float64)
        elif v["dtype"] == "F16":
            a = np.frombuffer(chunk, dtype="<f2").astype(np.float64)
        elif v["dtype"] == "BF16":
            a = bf16_to_f32(np.frombuffer(chunk, dtype="<u2")).astype(np.float64)
        elif v["dtype"] == "I64":
            a = np.frombuffer(chunk, dtype="<i8").astype(np.int64)
        else:
            raise ValueError(v["dtype"])
        out[name] = a.reshape(shape)
        dtypes[name] = v["dtype"]
    return out, dtypes, n


# ----------------------------------------------------------------------------
# Tokenizers (independent of the JS library)

def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def is_punctuation(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def bert_basic_tokenize(text):
    """BERT's BasicTokenizer: clean, space around CJK, lower-case, strip accents, split on space and punctuation."""
    cleaned = []
    for c in text:
        cp = ord(c)
        if cp == 0 or cp == 0xFFFD or (c not in "\t\n\r" and unicodedata.category(c).startswith("C")):
            continue
        cleaned.append(" " if c in " \t\n\r" or unicodedata.category(c) == "Zs" else c)
    spaced = "".join(" %s " % c if is_cjk(ord(c)) else c for c in cleaned)
    words = []
    for word in spaced.split():
        word = unicodedata.normalize("NFD", word.lower())
        word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = ""
        for c in word:
            if is_punctuation(c):
                if current:
                    words.append(current)
                words.append(c)
                current = ""
            else:
                current += c
        if current:
            words.append(current)
    return words


def wordpiece(word, vocab, unk="[UNK]"):
    if len(word) > 100:
        return [unk]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            piece = ("##" if start > 0 else "") + word[start:end]
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            return [unk]
        pieces.append(found)
        start = end
    return pieces


def bert_tokenize(text, vocab):
    return [p for w in bert_basic_tokenize(text) for p in wordpiece(w, vocab)]


def bytes_to_unicode():
    """GPT-2's byte -> printable character map, in its order (the order of the gpt2 vocabulary's first 256 ids)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


BYTE_ORDER = bytes_to_unicode()
BYTE_ENCODER = dict(BYTE_ORDER)
BYTE_DECODER = {c: b for b, c in BYTE_ORDER}


def byte_chars(s):
    return "".join(BYTE_ENCODER[b] for b in s.encode("utf-8"))


def gpt2_pre_split(text):
    """The GPT-2 pattern 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+."""
    letter = lambda c: unicodedata.category(c).startswith("L")
    number = lambda c: unicodedata.category(c).startswith("N")
    other = lambda c: not c.isspace() and not letter(c) and not number(c)
    out, i, n = [], 0, len(text)
    while i < n:
        match = next((c for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d") if text.startswith(c, i)), None)
        if match is not None:
            out.append(match)
            i += len(match)
            continue
        end = None
        for cls in (letter, number, other):
            j = i + 1 if text[i] == " " and i + 1 < n and cls(text[i + 1]) else i
            if cls(text[j]):
                end = j
                while end < n and cls(text[end]):
                    end += 1
                break
        if end is None:
            assert text[i].isspace()
            end = i
            while end < n and text[end].isspace():
                end += 1
            if end < n and end - i >= 2:
                end -= 1  # \s+(?!\S): leave the last space to the next word
        out.append(text[i:end])
        i = end
    assert "".join(out) == text
    return out


def bpe(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        best = min(range(len(parts) - 1), key=lambda k: ranks.get((parts[k], parts[k + 1]), math.inf))
        pair = (parts[best], parts[best + 1])
        if pair not in ranks:
            break
        merged, k = [], 0
        while k < len(parts):
            if k + 1 < len(parts) and (parts[k], parts[k + 1]) == pair:
                merged.append(parts[k] + parts[k + 1])
                k += 2
            else:
                merged.append(parts[k])
                k += 1
        parts = merged
    return parts


def bpe_tokenize(text, merges):
    ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
    return [p for chunk in gpt2_pre_split(text) for p in bpe(byte_chars(chunk), ranks)]


SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"


def readable_tokens(tokens, specials):
    """The "readable" rule of README.md for byte-level pieces."""
    piece_bytes = [None if t in specials else bytes(BYTE_DECODER[c] for c in t) for t in tokens]

    def valid(b):
        try:
            b.decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False

    out, i = [], 0
    while i < len(tokens):
        if piece_bytes[i] is None:
            out.append(tokens[i])
            i += 1
            continue
        if valid(piece_bytes[i]):
            out.append(piece_bytes[i].decode("utf-8"))
            i += 1
            continue
        j = i
        while j < len(tokens) and piece_bytes[j] is not None and not valid(piece_bytes[j]):
            j += 1
        run = b"".join(piece_bytes[i:j])
        owner = [k for k in range(i, j) for _ in piece_bytes[k]]
        units, p = [], 0  # (begin, end, text) over the run's bytes, left to right
        while p < len(run):
            lead = run[p]
            n = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4 if lead >> 3 == 30 else 0
            if n and p + n <= len(run) and valid(run[p:p + n]):
                units.append((p, p + n, run[p:p + n].decode("utf-8")))
                p += n
            else:
                units.append((p, p + 1, "<0x%02X>" % lead))
                p += 1
        shown = {k: "" for k in range(i, j)}
        for begin, end, text in units:
            pieces = sorted(set(owner[begin:end]))
            for position, k in enumerate(pieces, 1):
                shown[k] += text if len(pieces) == 1 else text + SUBSCRIPTS[position]
        out.extend(shown[k] for k in range(i, j))
        i = j
    return out


# ----------------------------------------------------------------------------
# Hand-written models with the Hugging Face parameter names (float64)

def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def linear(n_in, n_out):
    return torch.nn.Linear(n_in, n_out, dtype=F64)


def layer_norm(eps):
    return torch.nn.LayerNorm(D, eps=eps, dtype=F64)


class BertEmbeddings(torch.nn.Module):
    def __init__(self, vocab, positions, types, eps):
        super().__init__()
        self.word_embeddings = torch.nn.Embedding(vocab, D, dtype=F64)
        self.position_embeddings = torch.nn.Embedding(positions, D, dtype=F64)
        self.token_type_embeddings = torch.nn.Embedding(types, D, dtype=F64)
        self.LayerNorm = layer_norm(eps)

    def forward(self, ids, types, positions):
        return self.LayerNorm(self.word_embeddings(ids) + self.token_type_embeddings(types) + self.position_embeddings(positions))


class BertSelfAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = linear(D, D), linear(D, D), linear(D, D)

    def forward(self, x):
        L = x.shape[0]
        q, k, v = (m(x).view(L, NUM_HEADS, DK).transpose(0, 1) for m in (self.query, self.key, self.value))
        probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(DK), dim=-1)
        return (probs @ v).transpose(0, 1).reshape(L, D), probs


class BertSelfOutput(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.dense, self.LayerNorm = linear(D, D), layer_norm(eps)


class BertAttention(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.self = BertSelfAttention()
        self.output = BertSelfOutput(eps)

    def forward(self, x):
        context, probs = self.self(x)
        return self.output.LayerNorm(self.output.dense(context) + x), probs


class BertIntermediate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = linear(D, INTERMEDIATE)


class BertOutput(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.dense, self.LayerNorm = linear(INTERMEDIATE, D), layer_norm(eps)


class BertLayer(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.attention = BertAttention(eps)
        self.intermediate = BertIntermediate()
        self.output = BertOutput(eps)

    def forward(self, x):
        a, probs = self.attention(x)
        return self.output.LayerNorm(self.output.dense(gelu(self.intermediate.dense(a))) + a), probs


class BertEncoder(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.layer = torch.nn.ModuleList(BertLayer(eps) for _ in range(NUM_LAYERS))


class BertModel(torch.nn.Module):
    """BertModel / RobertaModel without pooler, no padding, erf GELU."""

    def __init__(self, vocab, positions, types, eps):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, positions, types, eps)
        self.encoder = BertEncoder(eps)

    def forward(self, ids, types, positions):
        h = self.embeddings(ids, types, positions)
        hidden, attentions = [h], []
        for layer in self.encoder.layer:
            h, probs = layer(h)
            hidden.append(h)
            attentions.append(probs)
        return hidden, attentions


class Conv1D(torch.nn.Module):
    """GPT-2's Conv1D: weight [in, out], y = x W + b."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(n_in, n_out, dtype=F64))
        self.bias = torch.nn.Parameter(torch.zeros(n_out, dtype=F64))

    def forward(self, x):
        return x @ self.weight + self.bias


class GPT2Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn, self.c_proj = Conv1D(D, 3 * D), Conv1D(D, D)

    def forward(self, x):
        L = x.shape[0]
        q, k, v = (t.view(L, NUM_HEADS, DK).transpose(0, 1) for t in self.c_attn(x).split(D, dim=-1))
        scores = q @ k.transpose(-1, -2) / math.sqrt(DK)
        causal = torch.ones(L, L, dtype=torch.bool).tril()
        probs = torch.softmax(scores.masked_fill(~causal, -math.inf), dim=-1)
        return self.c_proj((probs @ v).transpose(0, 1).reshape(L, D)), probs


class GPT2MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc, self.c_proj = Conv1D(D, 4 * D), Conv1D(4 * D, D)


class GPT2Block(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.ln_1, self.attn, self.ln_2, self.mlp = layer_norm(eps), GPT2Attention(), layer_norm(eps), GPT2MLP()

    def forward(self, x):
        a, probs = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp.c_proj(gelu_new(self.mlp.c_fc(self.ln_2(x)))), probs


class GPT2Model(torch.nn.Module):
    def __init__(self, vocab, positions, eps):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, D, dtype=F64)
        self.wpe = torch.nn.Embedding(positions, D, dtype=F64)
        self.h = torch.nn.ModuleList(GPT2Block(eps) for _ in range(NUM_LAYERS))
        self.ln_f = layer_norm(eps)

    def forward(self, ids, types, positions):
        h = self.wte(ids) + self.wpe(positions)
        hidden, attentions = [], []
        for block in self.h:
            hidden.append(h)
            h, probs = block(h)
            attentions.append(probs)
        hidden.append(self.ln_f(h))
        return hidden, attentions


def load(model, weights, prefix, renames, skip):
    """Loads the tensors read from the file into the model (strict): strips prefix, renames, skips the listed extras."""
    state, skipped = {}, set()
    for name, array in weights.items():
        if name in skip:
            skipped.add(name)
            continue
        assert name.startswith(prefix), name
        key = name[len(prefix):]
        for old, new in renames:
            if key.endswith(old):
                key = key[:-len(old)] + new
        state[key] = torch.tensor(array, dtype=F64)
    assert skipped == set(skip), set(skip) - skipped
    model.load_state_dict(state, strict=True)
    return model


def check_against_module(model, family, x):
    """One attention layer (layer 0) against torch.nn.MultiheadAttention in float64."""
    L = x.shape[0]
    mha = torch.nn.MultiheadAttention(D, NUM_HEADS, bias=True, batch_first=True, dtype=F64)
    with torch.no_grad():
        if family == "bert":
            att = model.encoder.layer[0].attention
            s = att.self
            mha.in_proj_weight.copy_(torch.cat([s.query.weight, s.key.weight, s.value.weight]))
            mha.in_proj_bias.copy_(torch.cat([s.query.bias, s.key.bias, s.value.bias]))
            mha.out_proj.weight.copy_(att.output.dense.weight)
            mha.out_proj.bias.copy_(att.output.dense.bias)
            context, probs = s(x)
            mine = att.output.dense(context)
            mask = None
        else:
            attn = model.h[0].attn
            x = model.h[0].ln_1(x)
            mha.in_proj_weight.copy_(attn.c_attn.weight.T)
            mha.in_proj_bias.copy_(attn.c_attn.bias)
            mha.out_proj.weight.copy_(attn.c_proj.weight.T)
            mha.out_proj.bias.copy_(attn.c_proj.bias)
            mine, probs = attn(x)
            mask = torch.ones(L, L, dtype=torch.bool).triu(1)
        out, weights = mha(x[None], x[None], x[None], attn_mask=mask, need_weights=True, average_attn_weights=False)
    diff = max(float((out[0] - mine).abs().max()), float((weights[0] - probs).abs().max()))
    assert diff <= 1e-12, diff
    return diff


def check_layer_against_module(model, family, x):
    """The whole layer 0 against torch.nn.TransformerEncoderLayer in float64: BERT is its post-LN form with
    erf GELU, a GPT-2 block its pre-LN (norm_first) form with tanh GELU and a causal mask."""
    F = torch.nn.functional
    L = x.shape[0]
    if family == "bert":
        layer = model.encoder.layer[0]
        s, att = layer.attention.self, layer.attention
        parts = dict(w_in=torch.cat([s.query.weight, s.key.weight, s.value.weight]),
                     b_in=torch.cat([s.query.bias, s.key.bias, s.value.bias]),
                     w_out=att.output.dense.weight, b_out=att.output.dense.bias,
                     w1=layer.intermediate.dense.weight, b1=layer.intermediate.dense.bias,
                     w2=layer.output.dense.weight, b2=layer.output.dense.bias,
                     norm1=att.output.LayerNorm, norm2=layer.output.LayerNorm)
        activation, mask = (lambda v: F.gelu(v)), None
    else:
        layer = model.h[0]
        parts = dict(w_in=layer.attn.c_attn.weight.T, b_in=layer.attn.c_attn.bias,
                     w_out=layer.attn.c_proj.weight.T, b_out=layer.attn.c_proj.bias,
                     w1=layer.mlp.c_fc.weight.T, b1=layer.mlp.c_fc.bias,
                     w2=layer.mlp.c_proj.weight.T, b2=layer.mlp.c_proj.bias,
                     norm1=layer.ln_1, norm2=layer.ln_2)
        activation, mask = (lambda v: F.gelu(v, approximate="tanh")), torch.ones(L, L, dtype=torch.bool).triu(1)
    enc = torch.nn.TransformerEncoderLayer(D, NUM_HEADS, dim_feedforward=parts["w1"].shape[0], dropout=0.0,
                                           activation=activation, layer_norm_eps=parts["norm1"].eps, batch_first=True,
                                           norm_first=family != "bert", dtype=F64)
    enc.eval()
    with torch.no_grad():
        enc.self_attn.in_proj_weight.copy_(parts["w_in"])
        enc.self_attn.in_proj_bias.copy_(parts["b_in"])
        enc.self_attn.out_proj.weight.copy_(parts["w_out"])
        enc.self_attn.out_proj.bias.copy_(parts["b_out"])
        enc.linear1.weight.copy_(parts["w1"])
        enc.linear1.bias.copy_(parts["b1"])
        enc.linear2.weight.copy_(parts["w2"])
        enc.linear2.bias.copy_(parts["b2"])
        for mine, theirs in ((parts["norm1"], enc.norm1), (parts["norm2"], enc.norm2)):
            assert mine.eps == theirs.eps
            theirs.weight.copy_(mine.weight)
            theirs.bias.copy_(mine.bias)
        out = enc(x[None], src_mask=mask)[0]
        mine, _ = layer(x)
    diff = float((out - mine).abs().max())
    assert diff <= 1e-12, diff
    return diff


# ----------------------------------------------------------------------------
# Random weights (float32, seeded), in Hugging Face names without prefix

class Randn:
    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def __call__(self, *shape, scale=0.2):
        return (torch.randn(*shape, generator=self.g, dtype=torch.float32) * scale).numpy()

    def ln_weight(self, n=D):
        return (1.0 + self(n, scale=0.1)).astype(np.float32)


def bert_weights(seed, positions, types, V):
    r = Randn(seed)
    w = {
        "embeddings.word_embeddings.weight": r(V, D, scale=0.5),
        "embeddings.position_embeddings.weight": r(positions, D, scale=0.5),
        "embeddings.token_type_embeddings.weight": r(types, D, scale=0.5),
        "embeddings.LayerNorm.weight": r.ln_weight(),
        "embeddings.LayerNorm.bias": r(D, scale=0.1),
    }
    for i in range(NUM_LAYERS):
        p = "encoder.layer.%d." % i
        for m in ("query", "key", "value"):
            w[p + "attention.self.%s.weight" % m] = r(D, D)
            w[p + "attention.self.%s.bias" % m] = r(D)
        w[p + "attention.output.dense.weight"] = r(D, D)
        w[p + "attention.output.dense.bias"] = r(D)
        w[p + "attention.output.LayerNorm.weight"] = r.ln_weight()
        w[p + "attention.output.LayerNorm.bias"] = r(D, scale=0.1)
        w[p + "intermediate.dense.weight"] = r(INTERMEDIATE, D)
        w[p + "intermediate.dense.bias"] = r(INTERMEDIATE)
        w[p + "output.dense.weight"] = r(D, INTERMEDIATE)
        w[p + "output.dense.bias"] = r(D)
        w[p + "output.LayerNorm.weight"] = r.ln_weight()
        w[p + "output.LayerNorm.bias"] = r(D, scale=0.1)
    return w, r


def gpt2_weights(seed, V):
    r = Randn(seed)
    w = {"wte.weight": r(V, D, scale=0.5), "wpe.weight": r(MAX_POSITIONS, D, scale=0.5)}
    causal = np.tril(np.ones((MAX_POSITIONS, MAX_POSITIONS), dtype=np.float32))[None, None]
    for i in range(NUM_LAYERS):
        p = "h.%d." % i
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = r.ln_weight(), r(D, scale=0.1)
        w[p + "attn.bias"] = causal
        w[p + "attn.masked_bias"] = np.array(-1e4, dtype=np.float32)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = r(D, 3 * D), r(3 * D)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = r(D, D), r(D)
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = r.ln_weight(), r(D, scale=0.1)
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = r(D, 4 * D), r(4 * D)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = r(4 * D, D), r(D)
    w["ln_f.weight"], w["ln_f.bias"] = r.ln_weight(), r(D, scale=0.1)
    return w, r


GPT2_BUFFERS = ["h.%d.attn.bias" % i for i in range(NUM_LAYERS)] + ["h.%d.attn.masked_bias" % i for i in range(NUM_LAYERS)]


# ----------------------------------------------------------------------------
# Vocabularies and tokenizer files

BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def bert_vocab():
    vocab = list(BERT_SPECIALS)
    for c in SENTENCE + SENTENCE_2:
        if c not in vocab:
            vocab.append(c)
    vocab += "hello world the snake venom".split() + ["##s", "##ed", ",", ".", "?", "!"]
    assert len(set(vocab)) == len(vocab)
    return vocab


def added_token(i, content, normalized):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": normalized, "special": True}


def bert_tokenizer_json(vocab):
    ids = {t: i for i, t in enumerate(vocab)}
    special = lambda t, type_id: {"SpecialToken": {"id": t, "type_id": type_id}}
    sequence = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added_token(ids[t], t, False) for t in BERT_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1), special("[SEP]", 1)],
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


def bpe_vocab(merges, before, after):
    """before + the 256 byte characters (GPT-2 order) + one token per merge + after."""
    vocab = list(before) + [c for _, c in BYTE_ORDER]
    for m in merges:
        a, b = m.split(" ")
        assert a in vocab and b in vocab, m
        if a + b not in vocab:
            vocab.append(a + b)
    vocab += after
    assert len(set(vocab)) == len(vocab)
    return vocab


def merge_of(text):
    """The merges that glue the bytes of one character into one token, left to right."""
    chars = byte_chars(text)
    return ["%s %s" % (chars[:k], chars[k]) for k in range(1, len(chars))]


def bpe_tokenizer_json(vocab, merges, added, post_processor):
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": post_processor,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": {t: i for i, t in enumerate(vocab)}, "merges": merges},
    }


ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
ROBERTA_MERGES = (["h e", "l l", "he ll", "hell o", "Ġ v", "e n", "Ġv en", "o m", "Ġven om"]
                  + [m for c in "毒蛇会不被死" for m in merge_of(c)])  # not 用 nor ，

GPT2_EOT = "<|endoftext|>"
GPT2_MERGES = (["t h", "th e", "Ġ s", "n a", "k e", "Ġs na", "Ġsna ke", "Ġ w", "Ġw o", "r l", "h e", "l l", "he ll"]
               + merge_of("毒") + merge_of("蛇")[:1])
GPT2_TEXT = "the snake 用毒毒毒蛇, hello world!"


# ----------------------------------------------------------------------------
# Files

def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def fmt(x):
    """12 significant digits (as tests/fixtures/grad), written as the shortest float that has them."""
    return repr(float("%.12g" % x))


def flat(values):
    return "[" + ",".join(fmt(v) for v in np.asarray(values, dtype=np.float64).ravel()) + "]"


def write_reference(path, source, config, special_tokens, cases):
    lines = ["{",
             '  "source": %s,' % json.dumps(source, ensure_ascii=False),
             '  "config": %s,' % json.dumps(config),
             '  "tolerance": %s,' % json.dumps(TOLERANCE)]
    if special_tokens is not None:
        lines.append('  "specialTokens": %s,' % json.dumps(special_tokens))
    lines.append('  "cases": [')
    rendered = []
    for c in cases:
        fields = [("name", json.dumps(c["name"])),
                  ("input", json.dumps(c["input"], ensure_ascii=False)),
                  ("inputIds", json.dumps(c["inputIds"])),
                  ("tokenTypeIds", json.dumps(c["tokenTypeIds"])),
                  ("positionIds", json.dumps(c["positionIds"])),
                  ("tokens", json.dumps(c["tokens"], ensure_ascii=False)),
                  ("readable", json.dumps(c["readable"], ensure_ascii=False)),
                  ("lastHiddenState", flat(c["lastHiddenState"])),
                  ("hiddenStates", flat(c["hiddenStates"])),
                  ("attention", flat(c["attention"]))]
        rendered.append("    {\n" + ",\n".join('      "%s": %s' % kv for kv in fields) + "\n    }")
    lines.append(",\n".join(rendered))
    lines.append("  ]")
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    back = json.load(open(path, encoding="utf-8"))
    for c, b in zip(cases, back["cases"]):
        for k in ("lastHiddenState", "hiddenStates", "attention"):
            want = np.asarray(c[k], dtype=np.float64).ravel()
            assert np.all(np.abs(np.asarray(b[k]) - want) <= 1e-11 * np.abs(want)), k


def run_case(model, family, name, inp, ids, types, vocab, specials, pad_id=None):
    L = len(ids)
    assert 0 < L <= MAX_POSITIONS
    if family == "roberta":
        positions = [pad_id + 1 + i for i in range(L)]  # no padding in these inputs
        assert pad_id not in ids
    else:
        positions = list(range(L))
    t = lambda v: torch.tensor(v, dtype=torch.long)
    with torch.no_grad():
        hidden, attentions = model(t(ids), t(types), t(positions))
    tokens = [vocab[i] for i in ids]
    readable = tokens if family == "bert" else readable_tokens(tokens, specials)
    case = {"name": name, "input": inp, "inputIds": ids, "tokenTypeIds": types, "positionIds": positions,
            "tokens": tokens, "readable": readable,
            "lastHiddenState": hidden[-1].numpy(),
            "hiddenStates": torch.stack(hidden).numpy(),
            "attention": torch.stack(attentions).numpy()}
    assert case["hiddenStates"].shape == (NUM_LAYERS + 1, L, D)
    assert case["attention"].shape == (NUM_LAYERS, NUM_HEADS, L, L)
    assert np.all(np.isfinite(case["hiddenStates"])) and np.all(np.isfinite(case["attention"]))
    rows = case["attention"].sum(-1)
    assert np.allclose(rows, 1.0, atol=1e-12)
    # Not uniform: in each (layer, head) some row gives one key at least 1.25 times its uniform share.
    usable = np.arange(1, L + 1) if family == "gpt2" else np.full(L, L)
    peaks = (case["attention"].max(-1) * usable)[..., usable >= 2].max(-1)
    assert L < 3 or peaks.min() > 1.25, (name, peaks)
    case["peak"] = float(peaks.min()) if L >= 3 else None
    # float32 run of the same model: how much of the tolerance it uses.
    m32 = copy.deepcopy(model).float()
    with torch.no_grad():
        h32, a32 = m32(t(ids), t(types), t(positions))
    want_h = case["hiddenStates"]
    got_h = torch.stack(h32).double().numpy()
    use_h = np.max(np.abs(got_h - want_h) / (TOLERANCE["hiddenAbs"] + TOLERANCE["hiddenRel"] * np.abs(want_h)))
    use_a = np.max(np.abs(torch.stack(a32).double().numpy() - case["attention"])) / TOLERANCE["attentionAbs"]
    use = float(max(use_h, use_a))
    assert use < 0.5, (name, use)
    case["f32use"] = use
    return case


# ----------------------------------------------------------------------------
# The folders

def bert_config(V, dtype):
    return {
        "architectures": ["BertForMaskedLM"],
        "model_type": "bert",
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": D,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": MAX_POSITIONS,
        "num_attention_heads": NUM_HEADS,
        "num_hidden_layers": NUM_LAYERS,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": dtype,
        "type_vocab_size": 2,
        "vocab_size": V,
    }


def summary_config(model_type, V, max_positions):
    return {"modelType": model_type, "numLayers": NUM_LAYERS, "numHeads": NUM_HEADS, "hiddenSize": D,
            "vocabSize": V, "maxPositions": max_positions}


def source_text(dtype_note, check, layer_check):
    return ("PyTorch float64 (Debian python3-torch %s, torch %s), hand-written model with the Hugging Face module "
            "names (not this project's code), weights as read back from the safetensors file%s; layer 0's attention "
            "checked against torch.nn.MultiheadAttention (max diff %.1e) and the whole layer 0 against "
            "torch.nn.TransformerEncoderLayer (max diff %.1e); token ids from the script's own tokenizer"
            % (DEBIAN_VERSION, torch.__version__, dtype_note, check, layer_check))


def finish(folder, model, family, cases, config, special_tokens, dtype_note, files_note):
    x = model.embeddings(*(torch.tensor(v) for v in (cases[0]["inputIds"], cases[0]["tokenTypeIds"], cases[0]["positionIds"]))) \
        if family != "gpt2" else model.wte(torch.tensor(cases[0]["inputIds"])) + model.wpe(torch.tensor(cases[0]["positionIds"]))
    check = check_against_module(model, "gpt2" if family == "gpt2" else "bert", x.detach())
    layer_check = check_layer_against_module(model, "gpt2" if family == "gpt2" else "bert", x.detach())
    write_reference(os.path.join(OUT_DIR, folder, "reference.json"), source_text(dtype_note, check, layer_check), config,
                    special_tokens, cases)
    return {"folder": folder, "cases": cases, "check": check, "layerCheck": layer_check, "note": files_note}


def make_berts():
    vocab = bert_vocab()
    V = len(vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    base, r = bert_weights(11, MAX_POSITIONS, 2, V)
    extras = {
        "pooler.dense.weight": r(D, D), "pooler.dense.bias": r(D),
        "cls.predictions.bias": r(V), "cls.predictions.transform.dense.weight": r(D, D),
        "cls.predictions.transform.LayerNorm.weight": r.ln_weight(),
    }
    position_ids = np.arange(MAX_POSITIONS, dtype=np.int64)[None]
    tokenizer = bert_tokenizer_json(vocab)
    tokenizer_config = {"do_lower_case": True, "tokenizer_class": "BertTokenizer", "model_max_length": MAX_POSITIONS}
    specials = {"cls": ids["[CLS]"], "sep": ids["[SEP]"], "pad": ids["[PAD]"], "unk": ids["[UNK]"], "mask": ids["[MASK]"]}

    # The inputs, tokenized by the script.
    cls_, sep = ids["[CLS]"], ids["[SEP]"]
    enc = lambda text: [ids[p] for p in bert_tokenize(text, ids)]
    a = [cls_] + enc(SENTENCE) + [sep]
    assert len(a) == 17
    first, second = "用毒毒毒蛇", SENTENCE_2
    b = [cls_] + enc(first) + [sep] + enc(second) + [sep]
    b_types = [0] * (len(enc(first)) + 2) + [1] * (len(enc(second)) + 1)
    english = "Hello world, snakes! ☃"
    c = [cls_] + enc(english) + [sep]
    assert [vocab[i] for i in c] == ["[CLS]", "hello", "world", ",", "snake", "##s", "!", "[UNK]", "[SEP]"], [vocab[i] for i in c]
    d = [cls_, ids["the"], ids["snake"], ids["##s"], ids["[MASK]"], ids["毒"], ids["死"], ids["."], sep]
    inputs = [("sentence", SENTENCE, a, [0] * len(a)),
              ("pair", {"text": first, "textPair": second}, b, b_types),
              ("english_unknown", english, c, [0] * len(c)),
              ("input_ids", {"inputIds": d}, d, [0] * len(d))]

    results = []
    variants = [
        # folder, prefix, dtype, padded, old LayerNorm names, tokenizer.json
        ("bert-zh", "bert.", "F32", True, False, True),
        ("bert-zh-vocab", "", "F16", False, True, False),
        ("bert-bf16", "bert.", "BF16", True, False, True),
    ]
    for folder, prefix, dtype, padded, old_names, with_tokenizer_json in variants:
        path = os.path.join(OUT_DIR, folder)
        os.makedirs(path)

        def name(k):
            if old_names:
                k = k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
            return k if k.startswith("cls.") else prefix + k

        tensors = [(name(k), dtype, v) for k, v in base.items()]
        tensors.insert(5, (name("embeddings.position_ids"), "I64", position_ids))
        tensors += [(name(k), dtype, v) for k, v in extras.items()]
        n = write_safetensors(os.path.join(path, "model.safetensors"), tensors, padded)
        weights, dtypes, n_back = read_safetensors(os.path.join(path, "model.safetensors"))
        assert n_back == n and len(weights) == len(tensors)
        for tname, tdtype, array in tensors:  # the reader gives back exactly the stored values
            want = stored(array, tdtype)
            want = bf16_to_f32(want) if tdtype == "BF16" else want
            assert dtypes[tname] == tdtype and np.array_equal(weights[tname], want.astype(weights[tname].dtype)), tname
        if dtype == "BF16":  # the rounding agrees with torch's
            for k, v in base.items():
                assert np.array_equal(weights[name(k)], torch.tensor(v).bfloat16().double().numpy()), k
        if dtype == "F16":
            for k, v in base.items():
                assert np.array_equal(weights[name(k)], torch.tensor(v).half().double().numpy()), k
        assert np.array_equal(weights[name("embeddings.position_ids")], position_ids)

        model = BertModel(V, MAX_POSITIONS, 2, 1e-12)
        renames = [(".LayerNorm.gamma", ".LayerNorm.weight"), (".LayerNorm.beta", ".LayerNorm.bias")]
        skip = [name(k) for k in extras] + [name("embeddings.position_ids")]
        load(model, weights, prefix, renames, skip)
        write_json(os.path.join(path, "config.json"), bert_config(V, {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]))
        with open(os.path.join(path, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in vocab))
        write_json(os.path.join(path, "tokenizer_config.json"), tokenizer_config)
        if with_tokenizer_json:
            write_json(os.path.join(path, "tokenizer.json"), tokenizer)
        cases = [run_case(model, "bert", cname, inp, cids, types, vocab, None) for cname, inp, cids, types in inputs]
        note = "%s, %s header, keys %s%s" % (dtype, "padded" if padded else "unpadded",
                                              "`bert.`-prefixed" if prefix else "without prefix",
                                              ", LayerNorm `.gamma`/`.beta`" if old_names else "")
        results.append(finish(folder, model, "bert", cases, summary_config("bert", V, MAX_POSITIONS), specials,
                              "" if dtype == "F32" else " (%s values)" % dtype, note))
    return results


def make_roberta():
    vocab = bpe_vocab(ROBERTA_MERGES, ROBERTA_SPECIALS, [])
    V = len(vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    pad_id, positions = 1, MAX_POSITIONS + 2
    base, r = bert_weights(23, positions, 1, V)
    extras = {"lm_head.dense.weight": r(D, D), "lm_head.bias": r(V)}
    path = os.path.join(OUT_DIR, "roberta")
    os.makedirs(path)
    tensors = [("roberta." + k, "F32", v) for k, v in base.items()] + [(k, "F32", v) for k, v in extras.items()]
    write_safetensors(os.path.join(path, "model.safetensors"), tensors, padded=True)
    weights, _, _ = read_safetensors(os.path.join(path, "model.safetensors"))
    model = load(BertModel(V, positions, 1, 1e-5), weights, "roberta.", [], list(extras))
    write_json(os.path.join(path, "config.json"), {
        "architectures": ["RobertaForMaskedLM"],
        "model_type": "roberta",
        "attention_probs_dropout_prob": 0.1,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": D,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-5,
        "max_position_embeddings": positions,
        "num_attention_heads": NUM_HEADS,
        "num_hidden_layers": NUM_LAYERS,
        "pad_token_id": pad_id,
        "position_embedding_type": "absolute",
        "torch_dtype": "float32",
        "type_vocab_size": 1,
        "vocab_size": V,
    })
    added = [added_token(ids[t], t, True) for t in ROBERTA_SPECIALS]
    post = {"type": "RobertaProcessing", "sep": ["</s>", ids["</s>"]], "cls": ["<s>", ids["<s>"]],
            "trim_offsets": True, "add_prefix_space": False}
    write_json(os.path.join(path, "tokenizer.json"), bpe_tokenizer_json(vocab, ROBERTA_MERGES, added, post))
    write_json(os.path.join(path, "tokenizer_config.json"), {
        "tokenizer_class": "RobertaTokenizer", "model_max_length": MAX_POSITIONS, "add_prefix_space": False,
        "bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>",
        "pad_token": "<pad>"})
    enc = lambda text: [ids["<s>"]] + [ids[p] for p in bpe_tokenize(text, ROBERTA_MERGES)] + [ids["</s>"]]
    cases = []
    for cname, text in (("sentence", SENTENCE), ("english", "hello venom")):
        cids = enc(text)
        cases.append(run_case(model, "roberta", cname, text, cids, [0] * len(cids), vocab, set(ROBERTA_SPECIALS), pad_id))
    assert cases[1]["tokens"] == ["<s>", "hello", "Ġvenom", "</s>"], cases[1]["tokens"]
    assert cases[0]["tokens"].count("æ¯Ĵ") == 6
    specials = {"cls": ids["<s>"], "sep": ids["</s>"], "pad": ids["<pad>"], "unk": ids["<unk>"]}
    return [finish("roberta", model, "roberta", cases, summary_config("roberta", V, positions), specials, "",
                   "F32, padded header, keys `roberta.`-prefixed")]


def make_gpt2s():
    vocab = bpe_vocab(GPT2_MERGES, [], [GPT2_EOT])
    V = len(vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    eot = ids[GPT2_EOT]
    config = {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "activation_function": "gelu_new",
        "attn_pdrop": 0.1,
        "bos_token_id": eot,
        "embd_pdrop": 0.1,
        "eos_token_id": eot,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-5,
        "n_ctx": MAX_POSITIONS,
        "n_embd": D,
        "n_head": NUM_HEADS,
        "n_inner": None,
        "n_layer": NUM_LAYERS,
        "n_positions": MAX_POSITIONS,
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "torch_dtype": "float32",
        "use_cache": True,
        "vocab_size": V,
    }
    tokenizer = bpe_tokenizer_json(vocab, GPT2_MERGES, [added_token(eot, GPT2_EOT, True)], None)
    tokenizer_config = {"tokenizer_class": "GPT2Tokenizer", "model_max_length": MAX_POSITIONS, "add_prefix_space": False,
                        "bos_token": GPT2_EOT, "eos_token": GPT2_EOT, "unk_token": GPT2_EOT}
    text_ids = [ids[p] for p in bpe_tokenize(GPT2_TEXT, GPT2_MERGES)]
    text_tokens = [vocab[i] for i in text_ids]
    assert "Ġsnake" in text_tokens and "Ġwo" in text_tokens and text_tokens.count("æ¯Ĵ") == 3
    results = []
    for folder, seed in (("gpt2", 31), ("gpt2-sharded", 37)):
        path = os.path.join(OUT_DIR, folder)
        os.makedirs(path)
        base, r = gpt2_weights(seed, V)
        if folder == "gpt2":
            write_safetensors(os.path.join(path, "model.safetensors"), [(k, "F32", v) for k, v in base.items()], padded=False)
            weights, _, _ = read_safetensors(os.path.join(path, "model.safetensors"))
            model = load(GPT2Model(V, MAX_POSITIONS, 1e-5), weights, "", [], GPT2_BUFFERS)
            ids_case = [eot, ids["the"], ids["Ġsnake"], ids["æ¯Ĵ"], ids["Ġwo"], ids["rl"], ids["d"], ids["!"], eot]
            note = "F32, unpadded header, keys without prefix"
        else:
            first = [k for k in base if k.startswith(("wte.", "wpe.", "h.0."))]
            shard1 = [("transformer." + k, "F32", base[k]) for k in first]
            shard2 = [("transformer." + k, "BF16", v) for k, v in base.items() if k not in first]
            shard2.append(("lm_head.weight", "BF16", base["wte.weight"]))
            files = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
            weights, weight_map, total = {}, {}, 0
            for fname, tensors in zip(files, (shard1, shard2)):
                write_safetensors(os.path.join(path, fname), tensors, padded=True)
                w, dt, _ = read_safetensors(os.path.join(path, fname))
                assert not set(w) & set(weights)
                weights.update(w)
                for tname, tdtype, array in tensors:
                    weight_map[tname] = fname
                    total += DTYPE_SIZE[tdtype] * int(np.prod(np.shape(array), dtype=np.int64))
            write_json(os.path.join(path, "model.safetensors.index.json"),
                       {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))})
            model = load(GPT2Model(V, MAX_POSITIONS, 1e-5), weights, "transformer.", [],
                         ["transformer." + k for k in GPT2_BUFFERS] + ["lm_head.weight"])
            # One lone lead byte (the first byte of 用) with no continuation: shown as <0xE7>.
            ids_case = [ids["the"], ids[byte_chars("用")[0]], ids["Ġsnake"], ids["æ¯Ĵ"], ids[byte_chars("蛇")[:2]], ids[byte_chars("蛇")[2]], eot]
            note = "two shards: F32 (embeddings, h.0) and BF16 (h.1, ln_f, lm_head), padded headers, keys `transformer.`-prefixed"
        write_json(os.path.join(path, "config.json"), config)
        write_json(os.path.join(path, "tokenizer.json"), tokenizer)
        write_json(os.path.join(path, "tokenizer_config.json"), tokenizer_config)
        cases = [run_case(model, "gpt2", "mixed_text", GPT2_TEXT, text_ids, [0] * len(text_ids), vocab, {GPT2_EOT}),
                 run_case(model, "gpt2", "input_ids", {"inputIds": ids_case}, ids_case, [0] * len(ids_case), vocab, {GPT2_EOT})]
        results.append(finish(folder, model, "gpt2", cases, summary_config("gpt2", V, MAX_POSITIONS), {"bos": eot, "eos": eot},
                              " (BF16 values in the second shard)" if folder != "gpt2" else "", note))
    return results


# ----------------------------------------------------------------------------
# Self-checks of the tokenizers and the readable rule

def self_checks():
    assert gpt2_pre_split("the snake 用毒毒毒蛇, hello  world!\n") == ["the", " snake", " 用毒毒毒蛇", ",", " hello", " ", " world", "!", "\n"]
    assert gpt2_pre_split("it's 42") == ["it", "'s", " 42"]
    assert bert_basic_tokenize("Héllo,世界 x") == ["hello", ",", "世", "界", "x"]
    assert BYTE_ENCODER[32] == "Ġ" and BYTE_ORDER[0] == (33, "!") and len(BYTE_ORDER) == 256
    du = byte_chars("毒")
    assert readable_tokens([du], set()) == ["毒"]
    assert readable_tokens(list(du), set()) == ["毒₁", "毒₂", "毒₃"]
    assert readable_tokens([du[:2], du[2], "Ġ"], set()) == ["毒₁", "毒₂", " "]
    assert readable_tokens([du[0], "Ġsn"], set()) == ["<0xE6>", " sn"]
    assert readable_tokens(["Ġ" + du[0], du[1:] + byte_chars("蛇")[0], byte_chars("蛇")[1:]], set()) == [" 毒₁", "毒₂蛇₁", "蛇₂"]


README = """# Hugging Face checkpoint fixtures

Tiny random checkpoints laid out like folders downloaded from the Hugging Face
Hub, with reference outputs, for the tests of the checkpoint loader (C++ and
JS). Written by `tests/tools/make_model_fixtures.py` (run it with Debian's
`/usr/bin/python3` and `python3-torch`); do not edit by hand: change the
script and run it again.

Every model has hidden size 32, 4 heads (dK 8), 2 layers; BERT/RoBERTa have
intermediate size 64, GPT-2 `n_inner: null` (= 4·32 = 128). Weights are
seeded `torch.randn * 0.2` (embeddings `* 0.5`), LayerNorm weights
`1 + 0.1·randn`, LayerNorm biases `0.1·randn`, every bias nonzero.

## Folders

| folder | files | weights | cases | MHA check | layer check | f32 use |
|---|---|---|---|---|---|---|
%s

* `bert-zh`: BERT (`hidden_act "gelu"` = erf GELU, `layer_norm_eps 1e-12`, `type_vocab_size 2`, post-LN,
  positions 0…L-1), `model.safetensors` keys `bert.embeddings.*`, `bert.encoder.layer.{i}.*` (`nn.Linear`
  weights `[out, in]`, y = x·Wᵀ + b) plus entries a loader must skip: `bert.embeddings.position_ids` (I64 `[1,64]`), `bert.pooler.dense.{weight,bias}`,
  `cls.predictions.bias`, `cls.predictions.transform.dense.weight`, `cls.predictions.transform.LayerNorm.weight`.
* `bert-zh-vocab`: the same float32 weights and config (except `torch_dtype`), stored as F16 with keys
  **without** prefix (`embeddings.*`, `encoder.*`, `pooler.*`, `cls.*`) and the old LayerNorm names
  `LayerNorm.gamma` / `LayerNorm.beta`; no `tokenizer.json`: the WordPiece tokenizer must be built from
  `vocab.txt` (+ `tokenizer_config.json`: `do_lower_case`). Its references use the F16-rounded weights.
* `bert-bf16`: as `bert-zh` but BF16 (upper 16 bits of the float32, round to nearest even); own references.
* `roberta`: RoBERTa, keys `roberta.*` plus `lm_head.dense.weight`, `lm_head.bias` to skip;
  `pad_token_id 1`, `type_vocab_size 1`, `layer_norm_eps 1e-5`, `max_position_embeddings 66`; position ids are
  `pad_token_id + 1 + i` = 2, 3, … (no padding in the inputs). Byte-level BPE `tokenizer.json` with
  `RobertaProcessing` (`<s>` … `</s>`); its merges leave `用` and `，` as 3 one-byte pieces each.
* `gpt2`: GPT-2, keys without prefix (`wte`, `wpe`, `h.{i}.*`, `ln_f`), Conv1D weights `[in, out]`
  (`c_attn.weight [32, 96]`: columns 0–31 Q, 32–63 K, 64–95 V), plus buffers to skip `h.{i}.attn.bias`
  (F32 `[1,1,64,64]` lower-triangular ones) and `h.{i}.attn.masked_bias` (F32 scalar, shape `[]`, -1e4).
  Unpadded header like the real hub gpt2 file. Pre-LN, causal, `gelu_new` (tanh approximation),
  output `ln_f(h)`. Byte-level BPE without post-processor (no special tokens added).
* `gpt2-sharded`: another seed, keys `transformer.*` plus `lm_head.weight [V, 32]` (to skip), split into
  `model-00001-of-00002.safetensors` (F32: `wte`, `wpe`, `h.0.*`) and `model-00002-of-00002.safetensors`
  (BF16: `h.1.*` including its buffers, `ln_f.*`, `lm_head.weight`), with `model.safetensors.index.json`
  (`{"metadata": {"total_size": bytes of tensor data}, "weight_map": {name: file}}`). Same tokenizer as `gpt2`.

safetensors layout: u64 little-endian header length N, N bytes of JSON
(`{"__metadata__": {"format": "pt"}, name: {"dtype", "shape", "data_offsets": [begin, end)}}`), then the
data; offsets count from the start of the data; tensors contiguous, C order, little-endian. "Padded":
the JSON is followed by spaces so that 8 + N is a multiple of 8. "Unpadded": no spaces and 8 + N is
**not** a multiple of 4, so the F32/F16 data are misaligned in the file (the loader must not read them
through a typed array view on the file buffer at that offset).

## Tokenizers

* BERT vocabulary (`vocab.txt`, one token per line, id = 0-based line number): %s.
  Special ids: `[PAD]` 0, `[UNK]` 1, `[CLS]` 2, `[SEP]` 3, `[MASK]` 4. `tokenizer.json`: `BertNormalizer`
  (clean_text, handle_chinese_chars, strip_accents null, lowercase), `BertPreTokenizer`, `WordPiece`
  (`##`, max 100 chars), `TemplateProcessing` (`[CLS] $A [SEP]`, pair `[CLS] $A [SEP] $B:1 [SEP]:1`).
* RoBERTa: `<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3, then the 256 byte characters of GPT-2's
  `bytes_to_unicode` (ids 4–259, in the order of the real gpt2 vocabulary), then one token per merge.
  Merges: %s.
* GPT-2: the 256 byte characters (ids 0–255, `Ġ` = 220 as in the real gpt2), then one token per merge,
  then `<|endoftext|>` = %d (special added token; `bos_token_id` = `eos_token_id` = %d). Merges: %s.
  They leave `用` as 3 one-byte pieces and `蛇` as a 2-byte and a 1-byte piece, while `毒` is one token.
* BPE pre-split: the GPT-2 pattern `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`;
  `add_prefix_space: false`.

The ids in the references come from the script's own tokenizers (BERT basic tokenization + greedy
longest-match-first WordPiece; GPT-2 pre-split + byte-level BPE by merge rank), not from a library.
When the fixtures were written they were also checked once, outside the script, with the npm package
`@huggingface/tokenizers` 0.2.0 (`new Tokenizer(tokenizerJson, tokenizerConfig).encode(text, {text_pair,
return_token_type_ids: true})`): same ids, tokens and token types for every text case of the folders with
a `tokenizer.json`. That library gives no `token_type_ids` when `post_processor` is null (GPT-2): use zeros.

## reference.json

```
{ "source": "...",
  "config": {"modelType", "numLayers", "numHeads", "hiddenSize", "vocabSize", "maxPositions"},
  "tolerance": {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5},
  "specialTokens": {...},
  "cases": [{"name", "input", "inputIds", "tokenTypeIds", "positionIds", "tokens", "readable",
             "lastHiddenState", "hiddenStates", "attention"}] }
```

| field | meaning |
|---|---|
| `config.maxPositions` | `max_position_embeddings` / `n_positions` (66 for `roberta`, of which 64 usable) |
| `specialTokens` | BERT/RoBERTa `{cls, sep, pad, unk}` (BERT also `mask`); GPT-2 `{bos, eos}` |
| `input` | exactly what the JS API is called with: a string, `{"text", "textPair"}`, or `{"inputIds": [...]}` (token types then omitted: all 0) |
| `inputIds` | the ids, special tokens included (L = its length); the `input_ids` case of `gpt2-sharded` holds a lone lead byte (`ç` = E7) on purpose |
| `tokenTypeIds` | `[L]`; BERT pair: 0 up to and including the first `[SEP]`, then 1; otherwise all 0 (GPT-2: not used) |
| `positionIds` | `[L]`: 0…L-1, RoBERTa 2…L+1 (informative; follows from the model type) |
| `tokens` | the vocabulary strings of the ids (`[CLS]`, `毒`, `##s`, `Ġsnake`, `æ`, …) |
| `readable` | display strings, see below |
| `lastHiddenState` | flat `[L, 32]` |
| `hiddenStates` | flat `[numLayers + 1, L, 32]`, as Hugging Face `output_hidden_states`: BERT/RoBERTa the embeddings' output (after the embedding LayerNorm), then each layer's output (the last = `lastHiddenState`); GPT-2 each block's input (the first = `wte + wpe`), then `ln_f` of the last block's output (= `lastHiddenState`) |
| `attention` | flat `[numLayers, numHeads, L, L]`, `attention[layer][head][query][key]`, after softmax (GPT-2: exactly 0 above the diagonal) |

Numbers are the float64 results rounded to 12 significant digits (as in `tests/fixtures/grad`),
written as the shortest decimal of that value; the rounding is far inside the tolerance. Comparison: attention
`|got - want| <= attentionAbs`; hidden states `|got - want| <= hiddenAbs + hiddenRel·|want|`.
Column "f32 use" above: the largest fraction of that budget used by the same model run by torch in
float32 (over all cases). Column "MHA check": layer 0's attention (weights and output projection) against
`torch.nn.MultiheadAttention(need_weights=True, average_attn_weights=False)` in float64; column "layer check":
the whole layer 0 against `torch.nn.TransformerEncoderLayer` in float64 (BERT/RoBERTa: post-LN with erf
GELU; GPT-2: `norm_first` with tanh GELU and a causal mask); both on the first case's input.

### The `readable` rule

* WordPiece (BERT): `readable` = `tokens`.
* Special tokens (`<s>`, `</s>`, `<pad>`, `<unk>`, `<|endoftext|>`): their content.
* Any other byte-level piece: map each character back to its byte (inverse `bytes_to_unicode`). If the
  piece's bytes are valid UTF-8 on their own, show them decoded (`Ġsnake` → `" snake"`, `æ¯Ĵ` → `"毒"`,
  `Ġ` → `" "`).
* Otherwise take the maximal run of consecutive pieces that are not valid UTF-8 on their own (and not
  special), concatenate their bytes and decode left to right: at each byte, if a complete valid UTF-8
  sequence starts there (length given by the lead byte) it is one character; else that single byte is a
  unit shown as `<0xHH>` (uppercase hex). Each piece then shows, in order, every unit that overlaps its
  bytes: the unit's text if the unit lies entirely inside the piece, else the text followed by the
  subscript digit (₁ ₂ ₃ ₄) of this piece's position among the pieces the unit overlaps.
  So `用` as 3 one-byte pieces gives `"用₁"`, `"用₂"`, `"用₃"`; `蛇` as a 2-byte and a 1-byte piece gives
  `"蛇₁"`, `"蛇₂"`; a lone lead byte E7 gives `"<0xE7>"`; a piece ending one character and starting the
  next would show e.g. `"毒₂蛇₁"`.

## Cases

%s

Source: `%s`.
"""


def main():
    torch.manual_seed(0)
    self_checks()
    os.makedirs(OUT_DIR, exist_ok=True)
    for folder in ("bert-zh", "bert-zh-vocab", "bert-bf16", "roberta", "gpt2", "gpt2-sharded"):
        shutil.rmtree(os.path.join(OUT_DIR, folder), ignore_errors=True)
    results = make_berts() + make_roberta() + make_gpt2s()

    rows, case_lines = [], []
    for r in results:
        folder = os.path.join(OUT_DIR, r["folder"])
        files = ", ".join("`%s` (%d B)" % (f, os.path.getsize(os.path.join(folder, f))) for f in sorted(os.listdir(folder)))
        use = max(c["f32use"] for c in r["cases"])
        rows.append("| `%s/` | %s | %s | %d | %.0e | %.0e | %.1f%% |" % (
            r["folder"], files, r["note"], len(r["cases"]), r["check"], r["layerCheck"], 100 * use))
        case_lines.append("* `%s`: %s" % (r["folder"], "; ".join(
            "`%s` (L=%d) %s" % (c["name"], len(c["inputIds"]), json.dumps(c["input"], ensure_ascii=False)) for c in r["cases"])))
        print(rows[-1])
    bert = bert_vocab()
    roberta_note = ", ".join("`%s`" % m for m in ROBERTA_MERGES)
    gpt2_vocab = bpe_vocab(GPT2_MERGES, [], [GPT2_EOT])
    eot = gpt2_vocab.index(GPT2_EOT)
    text = README % ("\n".join(rows), " ".join("`%s`" % t for t in bert), roberta_note, eot, eot,
                     ", ".join("`%s`" % m for m in GPT2_MERGES), "\n".join(case_lines),
                     source_text("", 0.0, 0.0).split(", hand-written")[0])
    with open(os.path.join(OUT_DIR, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(OUT_DIR) for f in fs)
    print("total %d bytes" % total)
    assert total < 2_000_000


if __name__ == "__main__":
    main()
