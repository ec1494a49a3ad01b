#!/usr/bin/env python3
"""Writes tests/fixtures/models/query-key/<folder>.json: the queries and keys
Hugging Face transformers' own attention takes, layer by layer, for the cases
of a fixture folder's reference.json (one folder per architecture and code
path: BERT with a text pair's token types, RoBERTa's positions around <pad>,
GPT-2's Conv1D, Llama's RoPE and llama3 rope scaling, Qwen2's q/k/v biases
and grouped-query attention, Qwen3's q/k norms and head_dim). The engine
returns them as model.run(input, { returnQueryKey: true }).query and .key:
tests/js/model-query-key.test.mjs compares the two.

How they are caught: each modeling module's eager_attention_forward (the
function transformers' attention modules call with attn_implementation
"eager") is wrapped to record the `query` and `key` it is given, [1, heads,
L, head_dim], and its `scaling`: biases added, RoPE applied (Llama, Qwen2,
Qwen3, after Qwen3's q_norm and k_norm), and the keys before repeat_kv
(grouped-query attention: [1, num_key_value_heads, L, head_dim]). The script
checks that softmax(query·keyᵀ·scaling + transformers' mask), with query head
h over key head h // (heads / key heads), gives the attention weights
transformers returns (output_attentions), and that those are the folder's
reference.json's (the same model and inputs).

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh, from the
repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_query_key_fixtures.py"

Writes its section of tests/fixtures/models/TRANSFORMERS.md (between its
markers; make_hf_fixtures.py keeps it).
"""
import inspect
import json
import os
import re
import sys

import numpy as np
import torch
import transformers

transformers.logging.set_verbosity_error()
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_fixtures.reference import write_sections  # noqa: E402 (arrays at 12 significant digits, read back)
from fixture_docs import write_section

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
OUT = os.path.join(MODELS, "query-key")
# One folder per architecture and code path (see the top of this file).
FOLDERS = ("bert-zh", "hf-roberta", "hf-gpt2-lm", "hf-llama", "hf-llama-rope-scaling", "hf-qwen2", "hf-qwen3")
DECODERS = ("gpt2", "llama", "qwen2", "qwen3")


def recorder(model):
    """Wraps the eager attention function of `model`'s modeling module: (calls, restore). Each call appends
    {query, key, scaling, mask} as transformers passes them."""
    module = sys.modules[type(model).__module__]
    original = module.eager_attention_forward
    signature = inspect.signature(original)
    calls = []

    def recording(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        query = a["query"]
        scaling = a["scaling"] if a["scaling"] is not None else query.size(-1) ** -0.5
        calls.append({"query": query.detach().clone(), "key": a["key"].detach().clone(), "scaling": float(scaling),
                      "mask": None if a["attention_mask"] is None else a["attention_mask"].detach().clone()})
        return original(*args, **kwargs)

    module.eager_attention_forward = recording
    return calls, lambda: setattr(module, "eager_attention_forward", original)


def weights_of(query, key, scaling, mask):
    """softmax(query·keyᵀ·scaling + mask) in float64, query head h over key head h // (H / G)."""
    H, G = query.shape[1], key.shape[1]
    k = key.repeat_interleave(H // G, dim=1)
    s = (query @ k.transpose(-1, -2)) * scaling
    if mask is not None:
        s = s + mask
    return torch.softmax(s, dim=-1)


def own_mask(L, causal):
    """The mask the engine applies: nothing, or -inf past the diagonal (a causal model)."""
    return torch.triu(torch.full((L, L), -torch.inf, dtype=torch.float64), 1) if causal else None


def make(folder):
    path = os.path.join(MODELS, folder)
    reference = json.load(open(os.path.join(path, "reference.json"), encoding="utf-8"))
    family = reference["config"]["modelType"]
    causal = family in DECODERS
    model = transformers.AutoModel.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
    cfg = model.config
    H = cfg.num_attention_heads
    G = getattr(cfg, "num_key_value_heads", None) or H
    hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // H
    layers = cfg.num_hidden_layers
    calls, restore = recorder(model)
    cases, worst_own, worst_reference = [], 0.0, 0.0
    try:
        for c in reference["cases"]:
            ids = c["inputIds"]
            L = len(ids)
            kwargs = {} if causal else {"token_type_ids": torch.tensor([c["tokenTypeIds"]])}
            calls.clear()
            with torch.no_grad():
                out = model(input_ids=torch.tensor([ids]), output_attentions=True, **kwargs)
            assert len(calls) == layers, (folder, c["name"], len(calls))
            query = torch.cat([r["query"] for r in calls])  # [layers, H, L, hd]
            key = torch.cat([r["key"] for r in calls])  # [layers, G, L, hd]
            assert query.shape == (layers, H, L, hd) and key.shape == (layers, G, L, hd), (query.shape, key.shape)
            assert query.dtype == torch.float64
            attention = torch.stack(out.attentions)[:, 0]
            for l, r in enumerate(calls):
                # transformers' own softmax (Llama, Qwen2, Qwen3 take it in float32) of its own mask, then the
                # engine's mask: both give the weights it returns.
                theirs = weights_of(r["query"], r["key"], r["scaling"], r["mask"])[0]
                assert torch.max(torch.abs(theirs - attention[l])) < 1e-6, (folder, c["name"], l)
                ours = weights_of(r["query"], r["key"], r["scaling"], own_mask(L, causal))[0]
                worst_own = max(worst_own, float(torch.max(torch.abs(ours - attention[l]))))
                assert r["scaling"] == hd ** -0.5, (folder, l, r["scaling"])
            # The folder's reference is of the same model and inputs.
            worst_reference = max(worst_reference, float(np.max(np.abs(
                attention.numpy().ravel() - np.asarray(c["attention"])))))
            case = {"name": c["name"], "inputIds": ids}
            if not causal:
                case["tokenTypeIds"] = c["tokenTypeIds"]
            case.update({"scaling": [r["scaling"] for r in calls], "query": query.numpy(), "key": key.numpy()})
            cases.append(case)
    finally:
        restore()
    assert worst_own < 1e-6 and worst_reference < 1e-10, (folder, worst_own, worst_reference)
    head = {
        "source": ("Hugging Face transformers %s (%s.from_pretrained of ../%s, float64, eager attention) on torch %s: "
                   "the query and key eager_attention_forward was given in each layer, and its scaling"
                   % (transformers.__version__, type(model).__name__, folder, torch.__version__)),
        "folder": folder,
        "config": {"modelType": family, "numLayers": layers, "numHeads": H, "numKVHeads": G, "headDim": hd,
                   "causal": causal},
    }
    os.makedirs(OUT, exist_ok=True)
    write_sections(os.path.join(OUT, folder + ".json"), head, {"cases": cases})
    print(folder, type(model).__name__, "%d cases; softmax of the engine's mask %.1e from transformers' weights"
          % (len(cases), worst_own))
    return {"folder": folder, "class": type(model).__name__, "cases": cases, "H": H, "G": G, "hd": hd,
            "worst": worst_own}


BEGIN, END = "<!-- BEGIN make_query_key_fixtures.py -->", "<!-- END make_query_key_fixtures.py -->"

DOC = """
## Queries and keys: `query-key/`

Written by [tests/tools/make_query_key_fixtures.py](../../tools/make_query_key_fixtures.py) (do not edit; this
section is that script's). For each folder below, `query-key/<folder>.json` holds, for every case of the
folder's `reference.json`, the `query` [layers, heads, L, head_dim] and `key` [layers, key heads, L, head_dim]
that Hugging Face transformers {transformers}'s eager attention (`eager_attention_forward` of the modeling
module, wrapped to record its arguments) was given in each layer, and its `scaling` per layer: the model
loaded by `AutoModel.from_pretrained(folder, dtype=float64, attn_implementation="eager")` on torch {torch}, the
case's `inputIds` (and `tokenTypeIds`, encoders) as input. The queries and keys have their biases, and for
Llama, Qwen2 and Qwen3 the rotary positions (after Qwen3's `q_norm` / `k_norm`); the keys are before
`repeat_kv`. The script checks that softmax(query·keyᵀ·scaling + mask), query head h over key head
h // (heads / key heads), with transformers' mask and with the engine's (none, or −∞ past the diagonal), gives
transformers' attention weights, which are the folder's `reference.json`'s, and that `scaling` is
head_dim^−0.5 in every layer. Arrays C order, 12 significant digits.

{rows}
"""


def document(results):
    rows = "\n".join(
        "* `%s.json` (%s: %d heads, %d key heads, head_dim %d): %s; softmax with the engine's mask %.1e from "
        "transformers' weights." % (r["folder"], r["class"], r["H"], r["G"], r["hd"], ", ".join(
            "`%s` (L=%d)" % (c["name"], len(c["inputIds"])) for c in r["cases"]), r["worst"]) for r in results)
    text = DOC.format(transformers=transformers.__version__, torch=torch.__version__, rows=rows)
    write_section(os.path.join(MODELS, "TRANSFORMERS.md"), BEGIN, END, text)


def main():
    document([make(folder) for folder in FOLDERS])


if __name__ == "__main__":
    main()
