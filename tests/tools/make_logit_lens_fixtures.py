#!/usr/bin/env python3
"""Writes tests/fixtures/models/logit-lens/<folder>.json: the logit lens (nostalgebraist 2020) of the committed
tiny decoders (hf-llama, hf-qwen2, hf-gpt2-lm) and MarianMT's decoder (hf-marian, teacher-forced), made by
Hugging Face transformers' own classes in float64 with eager attention; tests/js/logit-lens*.test.mjs compare
the engine's returnLayerLogits and mha-wasm/analysis' logitLens with them.

For one input of each folder's reference.json (a decoder's first case, its first 8 ids; MarianMT's first
forward case, its source and decoderInputIds), run with output_hidden_states=True:

* hidden_states[i], i < layers, is layer i's input (0: the embeddings' output), before the final norm; in
  transformers 5 hidden_states[-1] is already the final norm's output (utils/output_capturing.py,
  capture_outputs(tie_last_hidden_states=True) puts last_hidden_state there): checked here against a hook on
  the last layer's output through the model's norm.
* layerLogits[i] = lm_head(norm(hidden_states[i])) for i < layers, lm_head(hidden_states[-1]) for the last
  (so it is the model's logits: checked). Llama/Qwen2: model.norm (RMSNorm); GPT-2: transformer.ln_f.
  MarianMT has no final norm: lm_head(h) + final_logits_bias, as MarianMTModel.forward adds it.
* at positions [0, L // 2, L - 1]: layerLogits [layers + 1, 3, vocab], and per layer and position the top 5
  ids with their softmax probabilities (float64), the rank (1 = top; ties: lower id first) and probability of
  the last layer's top token, and `gap`: the smallest difference between consecutive top-5 logits, so a test
  can tell a float32 tie from a real order.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_logit_lens_fixtures.py"
"""
import json
import os
import sys

import numpy as np
import torch
import transformers

transformers.logging.set_verbosity_error()
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_checkpoints import MODELS, load, reference as read_reference  # noqa: E402

OUT = os.path.join(MODELS, "logit-lens")
TOP = 5


def rank_of(row, target):
    """1 + the ids ranked above `target`: larger logits, or equal ones with a lower id."""
    return int(np.sum(row > row[target]) + np.sum(row[:target] == row[target]) + 1)


def analyse(folder):
    ref = read_reference(folder)
    family = ref["config"]["modelType"]
    with torch.no_grad():
        if family == "marian":
            model = load(folder, transformers.AutoModelForSeq2SeqLM)
            case = ref["forward"][0]
            inputs = {"inputIds": case["inputIds"], "decoderInputIds": case["decoderInputIds"]}
            out = model(input_ids=torch.tensor([case["inputIds"]]),
                        decoder_input_ids=torch.tensor([case["decoderInputIds"]]), output_hidden_states=True,
                        use_cache=False)
            states = out.decoder_hidden_states
            norm = None
            head = lambda h: model.lm_head(h) + model.final_logits_bias  # noqa: E731
            last_layer = None
        else:
            model = load(folder, transformers.AutoModelForCausalLM)
            ids = ref["cases"][0]["inputIds"][:8]
            inputs = {"inputIds": ids}
            inner = model.transformer if family == "gpt2" else model.model
            norm = inner.ln_f if family == "gpt2" else inner.norm
            layers = inner.h if family == "gpt2" else inner.layers
            seen = {}
            hook = layers[-1].register_forward_hook(
                lambda m, a, o: seen.__setitem__("out", o[0] if isinstance(o, tuple) else o))
            out = model(input_ids=torch.tensor([ids]), output_hidden_states=True, use_cache=False)
            hook.remove()
            states = out.hidden_states
            head = model.lm_head
            last_layer = seen["out"]
        n = len(states) - 1
        lens = []
        for i, h in enumerate(states):
            lens.append(head(norm(h) if norm is not None and i < n else h)[0])
        lens = torch.stack(lens).numpy()  # [layers + 1, L, vocab]
        logits = out.logits[0].numpy()
        assert np.array_equal(lens[-1], logits), "the last row of the lens is not the model's logits"
        if last_layer is not None:
            # hidden_states[-1] is the final norm's output, not the last layer's.
            assert torch.allclose(norm(last_layer), states[-1], atol=1e-12), "hidden_states[-1] is not normed"
            assert not torch.allclose(last_layer, states[-1], atol=1e-6)
    L = lens.shape[1]
    positions = sorted({0, L // 2, L - 1})
    picked = lens[:, positions]
    probs = np.exp(picked - picked.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    table = []
    for i in range(n + 1):
        rows = []
        for k, p in enumerate(positions):
            row, pr = picked[i, k], probs[i, k]
            order = sorted(range(len(row)), key=lambda v: (-row[v], v))[:TOP]
            final = int(sorted(range(len(row)), key=lambda v: (-picked[n, k][v], v))[0])
            rows.append({"position": p, "top": [{"id": v, "probability": float(pr[v])} for v in order],
                         "gap": float(min(row[order[j]] - row[order[j + 1]] for j in range(TOP - 1))),
                         "finalTop": {"id": final, "rank": rank_of(row, final), "probability": float(pr[final]),
                                      "logitGap": float(np.min(np.abs(np.delete(row, final) - row[final])))}})
        table.append(rows)
    result = {
        "source": "Hugging Face transformers %s (%s.from_pretrained of ../%s, float64, eager attention, "
                  "output_hidden_states) on torch %s" % (transformers.__version__, type(model).__name__, folder,
                                                         torch.__version__),
        "folder": folder, "family": family, "layers": n, "vocabSize": int(lens.shape[-1]),
        "input": inputs, "positions": positions,
        "layerLogits": {"shape": list(picked.shape), "data": picked.ravel().tolist()},
        "table": table,
    }
    with open(os.path.join(OUT, folder + ".json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(rounded(result), separators=(",", ":")) + "\n")
    print(folder, "layers", n, "positions", positions)


def rounded(value):
    """Floats at 12 significant digits."""
    if isinstance(value, float):
        return float("%.12g" % value)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def main():
    os.makedirs(OUT, exist_ok=True)
    for folder in ("hf-llama", "hf-qwen2", "hf-gpt2-lm", "hf-marian"):
        analyse(folder)


if __name__ == "__main__":
    main()
