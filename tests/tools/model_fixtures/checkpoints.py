"""The stored tensors: number formats, a safetensors writer and an independent little reader, seeded
random weights in Hugging Face names."""
import json
import struct

import numpy as np
import torch

from .common import D, INTERMEDIATE, MAX_POSITIONS, NUM_LAYERS


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
