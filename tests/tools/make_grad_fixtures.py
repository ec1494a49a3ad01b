#!/usr/bin/python3
"""Writes tests/fixtures/grad/*.json: gradients of multi-head attention by
PyTorch autograd in float64, for the native backward tests (and later the JS
ones). Needs Debian's python3-torch and python3-numpy (apt-get install -y
--no-install-recommends python3-torch python3-numpy), hence /usr/bin/python3:

    /usr/bin/python3 tests/tools/make_grad_fixtures.py

Only this script needs torch; the tests read the JSON it writes.

The attention is written per head in torch (not nn.MultiheadAttention) so that
dK != dV, numHeads*dK != dModel and rows with no usable key are covered; where
the module fits (dK == dV, numHeads*dK == dModel, every row has a key) the
script checks that the module's autograd gives the same gradients.
Conventions (layout, masks, the all-masked row) are those of
tests/fixtures/README.md; loss = sum(gradOutput * output).
"""
import json
import math
import os

import numpy as np
import torch

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "grad")
DEBIAN_VERSION = "1.13.1+dfsg-4"
REL = 1e-4

CASES = [
    # name, description, B, Lq, Lk, D, H, dK, dV, causal, self, bias, padding, seed
    ("self_bias", "self-attention with all four biases, batch 2", 2, 5, 5, 8, 2, 4, 4, False, True, True, "none", 1),
    ("causal_self", "causal self-attention with biases", 2, 6, 6, 8, 2, 4, 4, True, True, True, "none", 2),
    ("key_padding", "key padding mask, different per batch item, self-attention", 2, 6, 6, 8, 2, 4, 4, False, True, True, "random", 3),
    ("cross_attention", "cross-attention Lq=3 < Lk=7, distinct query/key/value", 2, 3, 7, 12, 3, 4, 4, False, False, True, "none", 4),
    ("dk_ne_dv", "dK=6 != dV=3, numHeads*dK=12 != dModel=8, cross-attention without biases", 1, 5, 7, 8, 2, 6, 3, False, False, False, "none", 5),
    ("fully_masked_row", "causal + padding: batch item 1 ignores key 0, so its query row 0 has no usable key", 2, 5, 5, 8, 2, 4, 4, True, True, True, "first_key_of_last", 6),
    ("odd_tails", "L=17, dK=3, causal self-attention with biases and padding", 1, 17, 17, 12, 4, 3, 3, True, True, True, "random", 7),
]

INPUTS = ["query", "key", "value", "wQ", "wK", "wV", "wO", "bQ", "bK", "bV", "bO"]
GRADS = ["gradQuery", "gradKey", "gradValue", "gradWQ", "gradWK", "gradWV", "gradWO", "gradBQ", "gradBK", "gradBV", "gradBO"]


def attention(x, H, dK, dV, causal, mask):
    """output of multi-head attention, per head; rows with no usable key give head output 0."""
    query, key, value = x["query"], x["key"], x["value"]
    B, Lq, _ = query.shape
    Lk = key.shape[1]

    def proj(inp, w, b, d):
        y = inp @ w
        if b is not None:
            y = y + b
        return y.view(inp.shape[0], inp.shape[1], H, d).transpose(1, 2)

    Q = proj(query, x["wQ"], x["bQ"], dK)
    K = proj(key, x["wK"], x["bK"], dK)
    V = proj(value, x["wV"], x["bV"], dV)
    S = Q @ K.transpose(-1, -2) / math.sqrt(dK)
    usable = torch.ones(B, 1, Lq, Lk, dtype=torch.bool)
    if causal:
        usable = usable & torch.ones(Lq, Lk, dtype=torch.bool).tril()
    if mask is not None:
        usable = usable & ~mask[:, None, None, :]
    anyUsable = usable.any(-1, keepdim=True)
    # A row with no usable key: softmax of zeros times 0, so that neither the
    # output nor any gradient is NaN (torch's own modules give NaN there).
    S = torch.where(anyUsable, S.masked_fill(~usable, float("-inf")), torch.zeros_like(S))
    P = torch.softmax(S, dim=-1) * anyUsable
    heads = (P @ V).transpose(1, 2).reshape(B, Lq, H * dV)
    out = heads @ x["wO"]
    if x["bO"] is not None:
        out = out + x["bO"]
    return out


def gradients(arrays, dY, H, dK, dV, causal, selfAttention, mask, dtype):
    x = {k: (None if v is None else torch.tensor(v, dtype=dtype, requires_grad=True)) for k, v in arrays.items()}
    if selfAttention:
        x["key"] = x["value"] = x["query"]  # one tensor: autograd sums its three uses
    m = None if mask is None else torch.tensor(mask, dtype=torch.bool)
    out = attention(x, H, dK, dV, causal, m)
    (out * torch.tensor(dY, dtype=dtype)).sum().backward()
    g = {}
    for name, gname in zip(INPUTS, GRADS):
        if x[name] is None or (selfAttention and name in ("key", "value")):
            g[gname] = None
        else:
            g[gname] = x[name].grad.detach().numpy().astype(np.float64)
    return out.detach().numpy().astype(np.float64), g


def module_gradients(arrays, dY, H, selfAttention, mask):
    """The same gradients through torch.nn.MultiheadAttention (float64), as a check."""
    D = arrays["query"].shape[2]
    mha = torch.nn.MultiheadAttention(D, H, bias=arrays["bQ"] is not None, batch_first=True, dtype=torch.float64)
    mha.train()
    t = {k: (None if v is None else torch.tensor(v, dtype=torch.float64, requires_grad=True)) for k, v in arrays.items()}
    with torch.no_grad():
        w = torch.cat([t["wQ"].T, t["wK"].T, t["wV"].T])
    mha.in_proj_weight = torch.nn.Parameter(w)
    mha.out_proj.weight = torch.nn.Parameter(t["wO"].detach().T.clone())
    if arrays["bQ"] is not None:
        mha.in_proj_bias = torch.nn.Parameter(torch.cat([t["bQ"], t["bK"], t["bV"]]).detach().clone())
        mha.out_proj.bias = torch.nn.Parameter(t["bO"].detach().clone())
    q = t["query"]
    k = q if selfAttention else t["key"]
    v = q if selfAttention else t["value"]
    m = None if mask is None else torch.tensor(mask, dtype=torch.bool)
    return mha, q, k, v, m


def check_against_module(arrays, dY, H, causal, selfAttention, mask, g):
    mha, q, k, v, m = module_gradients(arrays, dY, H, selfAttention, mask)
    Lq, Lk = arrays["query"].shape[1], arrays["key"].shape[1]
    attn_mask = torch.ones(Lq, Lk, dtype=torch.bool).triu(1) if causal else None
    out, _ = mha(q, k, v, key_padding_mask=m, attn_mask=attn_mask, need_weights=False)
    (out * torch.tensor(dY, dtype=torch.float64)).sum().backward()
    E = arrays["query"].shape[2]
    want = {"gradQuery": q.grad, "gradWO": mha.out_proj.weight.grad.T,
            "gradWQ": mha.in_proj_weight.grad[:E].T, "gradWK": mha.in_proj_weight.grad[E:2 * E].T,
            "gradWV": mha.in_proj_weight.grad[2 * E:].T}
    if not selfAttention:
        want["gradKey"], want["gradValue"] = k.grad, v.grad
    if arrays["bQ"] is not None:
        b = mha.in_proj_bias.grad
        want.update(gradBQ=b[:E], gradBK=b[E:2 * E], gradBV=b[2 * E:], gradBO=mha.out_proj.bias.grad)
    worst = max(float(np.max(np.abs(g[n] - w.detach().numpy()))) for n, w in want.items())
    assert worst <= 1e-10, worst
    return worst


def f32_string(x):
    """Shortest decimal that gives back the float32 x both parsed as float32 and as double then rounded."""
    s = np.format_float_positional(np.float32(x), unique=True, trim="-")
    if np.float32(float(s)) != np.float32(x):
        s = repr(float(np.float32(x)))
    assert np.float32(float(s)) == np.float32(x)
    return s


def f64_string(x):
    return "%.12g" % x


def array(values, fmt):
    return "[" + ",".join(fmt(v) for v in np.asarray(values).ravel()) + "]"


def make(case):
    name, description, B, Lq, Lk, D, H, dK, dV, causal, selfAttention, bias, padding, seed = case
    rng = np.random.default_rng(seed)
    f32 = lambda shape, s: (rng.standard_normal(shape) * s).astype(np.float32)
    query = f32((B, Lq, D), 1)
    arrays = {
        "query": query,
        "key": query if selfAttention else f32((B, Lk, D), 1),
        "value": query if selfAttention else f32((B, Lk, D), 1),
        "wQ": f32((D, H * dK), 1 / math.sqrt(D)),
        "wK": f32((D, H * dK), 1 / math.sqrt(D)),
        "wV": f32((D, H * dV), 1 / math.sqrt(D)),
        "wO": f32((H * dV, D), 1 / math.sqrt(H * dV)),
    }
    for b, n in (("bQ", H * dK), ("bK", H * dK), ("bV", H * dV), ("bO", D)):
        arrays[b] = f32((n,), 0.1) if bias else None
    mask = None
    if padding == "random":
        mask = rng.random((B, Lk)) < 0.25
        mask[:, -1] = False  # every row keeps a key (the module check needs it)
    elif padding == "first_key_of_last":
        mask = np.zeros((B, Lk), dtype=bool)
        mask[-1, 0] = True
    dY = f32((B, Lq, D), 1)
    as64 = {k: (None if v is None else v.astype(np.float64)) for k, v in arrays.items()}
    output, g = gradients(as64, dY.astype(np.float64), H, dK, dV, causal, selfAttention, mask, torch.float64)

    noKeyRows = 0
    for b in range(B):
        for i in range(Lq):
            usable = [(not causal or j <= i) and (mask is None or not mask[b, j]) for j in range(Lk)]
            noKeyRows += not any(usable)
    moduleDiff = None
    if dK == dV and H * dK == D and noKeyRows == 0:
        moduleDiff = check_against_module(as64, dY.astype(np.float64), H, causal, selfAttention, mask, g)

    # Tolerance: |got - want| <= abs + rel*|want|, rel = 1e-4 and abs 1e-5
    # times the largest gradient rms (dbK, exactly 0 in exact arithmetic, is
    # judged on that scale). The same gradients in float32 must use only a
    # small part of that budget.
    scale = max(float(np.sqrt(np.mean(v ** 2))) for v in g.values() if v is not None)
    tol_abs = float("%.2g" % (1e-5 * max(1.0, scale)))
    as32 = {k: (None if v is None else v) for k, v in arrays.items()}
    _, g32 = gradients(as32, dY, H, dK, dV, causal, selfAttention, mask, torch.float32)
    use = max(float(np.max(np.abs(g32[n] - g[n]) / (tol_abs + REL * np.abs(g[n])))) for n in GRADS if g[n] is not None)
    assert use < 0.5, (name, use)

    source = "PyTorch autograd float64 (Debian python3-torch %s, torch %s), per-head implementation" % (
        DEBIAN_VERSION, torch.__version__)
    if moduleDiff is not None:
        source += "; checked against torch.nn.MultiheadAttention autograd (max diff %.1e)" % moduleDiff
    fields = [
        ("name", json.dumps(name)), ("description", json.dumps(description)), ("source", json.dumps(source)),
        ("batch", str(B)), ("seqLenQ", str(Lq)), ("seqLenK", str(Lk)), ("dModel", str(D)), ("numHeads", str(H)),
        ("dK", str(dK)), ("dV", str(dV)), ("causal", json.dumps(causal)), ("selfAttention", json.dumps(selfAttention)),
        ("keyPaddingMask", "null" if mask is None else array(mask.astype(int), str)),
    ]
    for k in INPUTS:
        fields.append((k, "null" if arrays[k] is None else array(arrays[k], f32_string)))
    fields.append(("gradOutput", array(dY, f32_string)))
    fields.append(("output", array(output, f64_string)))
    for n in GRADS:
        fields.append((n, "null" if g[n] is None else array(g[n], f64_string)))
    fields.append(("tolerance", json.dumps({"abs": tol_abs, "rel": REL})))
    text = "{\n" + ",\n".join("  %s: %s" % (json.dumps(k), v) for k, v in fields) + "\n}\n"
    path = os.path.join(OUT_DIR, name + ".json")
    with open(path, "w") as f:
        f.write(text)

    # Read back: the inputs parse to exactly the float32 values used.
    back = json.loads(open(path).read())
    for k in INPUTS:
        if arrays[k] is not None:
            assert np.array_equal(np.asarray(back[k], dtype=np.float32), arrays[k].ravel()), (name, k)
    row = "| `%s.json` | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %d | %s | %g / %g | %.1f%% |" % (
        name, B, Lq, Lk, D, H, dK, dV, yes(causal), yes(selfAttention), yes(bias), yes(mask is not None), noKeyRows,
        "-" if moduleDiff is None else "%.0e" % moduleDiff, tol_abs, REL, 100 * use)
    print(row)
    return row, "* `%s`: %s." % (name, description)


def yes(flag):
    return "yes" if flag else "no"


README = """# Gradient fixtures (multi-head attention backward)

Written by `tests/tools/make_grad_fixtures.py` (run it with Debian's
`/usr/bin/python3` and `python3-torch`); read by `tests/native/backward_test.cpp`.
Do not edit by hand: change the script and run it again.

## Format

The fields of `tests/fixtures/README.md` (sizes, `causal`, `selfAttention`,
`keyPaddingMask`, the inputs as float32 values written as the shortest decimal
that reads back to the same float32, `output`), plus:

| field | shape | meaning |
|---|---|---|
| `gradOutput` | `[B, Lq, D]` | float32 values; the loss is `sum(gradOutput * output)` |
| `gradQuery` | `[B, Lq, D]` | with `selfAttention`, the whole gradient of the one input used as query, key and value |
| `gradKey`, `gradValue` | `[B, Lk, D]` or `null` | `null` with `selfAttention` |
| `gradWQ`, `gradWK` | `[D, H*dK]` | |
| `gradWV` | `[D, H*dV]` | |
| `gradWO` | `[H*dV, D]` | |
| `gradBQ`, `gradBK`, `gradBV`, `gradBO` | like the bias, or `null` | `null` when the bias is `null` |
| `tolerance` | `{"abs": a, "rel": r}` | element-wise `abs(got - want) <= a + r * abs(want)` |

Gradients are PyTorch autograd in float64 from exactly the float32 inputs,
written with 12 significant digits. The attention is a per-head torch
implementation (so that `dK != dV`, `H*dK != dModel` and rows with no usable
key are covered; such a row has weights 0 and passes no gradient). Where
`torch.nn.MultiheadAttention` fits, its autograd was checked to give the same
gradients (column "module": largest difference).

`rel = 1e-4`; `abs = 1e-5 * max(1, largest rms of the fixture's gradients)`
(`gradBK` is exactly 0 in exact arithmetic, softmax being blind to a shift of
its row, so it is judged on that scale). Column "f32 use": the largest
fraction of that budget the same gradients computed by torch in float32 use.

## Fixtures

| file | B | Lq | Lk | dModel | H | dK | dV | causal | self | bias | padding | no-key rows | module | tolerance (abs / rel) | f32 use |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
%s

%s

Source: `PyTorch autograd float64 (Debian python3-torch %s, torch %s)`.
"""


def main():
    torch.manual_seed(0)
    os.makedirs(OUT_DIR, exist_ok=True)
    rows, descriptions = zip(*(make(case) for case in CASES))
    with open(os.path.join(OUT_DIR, "README.md"), "w") as f:
        f.write(README % ("\n".join(rows), "\n".join(descriptions), DEBIAN_VERSION, torch.__version__))


if __name__ == "__main__":
    main()
