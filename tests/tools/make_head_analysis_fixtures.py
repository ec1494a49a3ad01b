#!/usr/bin/env python3
"""Writes tests/fixtures/models/head-analysis/<folder>.json: the experiments of
mha-wasm/analysis (src/js/analysis/) done by Hugging Face transformers' own
classes in float64 with eager attention, on the committed tiny checkpoints:
MarianMT's three attention groups (hf-marian), Qwen2's grouped-query attention
(hf-qwen2), Llama (hf-llama), GPT-2 (hf-gpt2-lm) and BERT's masked-LM head
(hf-bert-mlm). tests/js/head-analysis*.test.mjs compares the package with them.

For one input of each folder's reference.json and its reference output (a
decoder's greedy continuation of 3 tokens, MarianMT's greedy translation with
num_beams=1 under its generation_config.json, BERT's top token at its [MASK]):

* score: the reference's log-probability, teacher-forced: Σ_t log_softmax(logits)[t] in float64;
* delta [layers, heads] per group: the score with that head alone switched off, minus the score;
* order: every head by decreasing delta (least important first), ties by group, layer, head;
* curve: per group and for all heads ("all"), at 0, 10 … 100 % of its heads switched off along `order`
  (round(n·k/10) heads), the score and the re-decoded output (generate() greedy with the heads off, BERT's top
  token), with `margin`: the smallest gap between the top two logits along that decoding, so a test can tell a
  float32 tie from a real difference;
* oneHead: per group and layer, the layer's most important head (smallest delta) kept and the layer's other
  heads off, its score; per group its single most important head kept and the group's other heads off (score
  and output); MarianMT: that in every group at once;
* rollout per self-attention group (Abnar & Zuidema 2020) in numpy from output_attentions: per layer
  0.5·mean_h(A) + 0.5·I, multiplied through the layers, [layers, L, L] after each layer.

Heads are switched off as transformers 4's head_mask did (make_head_output_fixtures.py and
make_marian_fixtures.py emulate it the same way): each eager_attention_forward's weights and output multiplied
by the layer's mask row, in every call, generate()'s cached steps included.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run /var/tmp/sid-root --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_head_analysis_fixtures.py"
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
from hf_checkpoints import MODELS, head_mask, load, reference as read_reference  # noqa: E402

OUT = os.path.join(MODELS, "head-analysis")
STEPS = 10
NEW_TOKENS = 3


def log_softmax_at(logits, row, target):
    x = logits[row].double()
    return float(x[target] - torch.logsumexp(x, 0))


def margin_of(scores):
    """The smallest gap between the top two of each row of logits."""
    gaps = [float(torch.topk(s.double().ravel(), 2).values[0] - torch.topk(s.double().ravel(), 2).values[1])
            for s in scores]
    return min(gaps) if gaps else float("inf")


class Task:
    """A folder's model, input, attention modules by group, and its reference's passes."""

    def __init__(self, folder):
        self.folder = folder
        reference = read_reference(folder)
        family = reference["config"]["modelType"]
        self.family = family
        if family == "marian":
            self.model = load(folder, transformers.AutoModelForSeq2SeqLM)
            m = self.model.model
            self.groups = {"encoder": [l.self_attn for l in m.encoder.layers],
                           "decoder": [l.self_attn for l in m.decoder.layers],
                           "cross": [l.encoder_attn for l in m.decoder.layers]}
            self.heads = {"encoder": m.config.encoder_attention_heads, "decoder": m.config.decoder_attention_heads,
                          "cross": m.config.decoder_attention_heads}
            self.input = reference["forward"][0]["inputIds"]
        elif family == "bert":
            self.model = load(folder, transformers.AutoModelForMaskedLM)
            self.groups = {"encoder": [l.attention.self for l in self.model.bert.encoder.layer]}
            self.heads = {"encoder": self.model.config.num_attention_heads}
            case = reference["masked"][0]
            self.input, self.positions = case["inputIds"], case["maskPositions"]
        else:
            self.model = load(folder, transformers.AutoModelForCausalLM)
            layers = self.model.transformer.h if family == "gpt2" else self.model.model.layers
            self.groups = {"decoder": [l.attn if family == "gpt2" else l.self_attn for l in layers]}
            self.heads = {"decoder": self.model.config.num_attention_heads}
            self.input = reference["cases"][0]["inputIds"][:8]
        self.kind = {"marian": "encoder-decoder", "bert": "encoder"}.get(family, "decoder")
        self.full = self.kept()
        self.output, _ = self.redecode(self.full)

    def kept(self):
        return {g: np.ones((len(mods), self.heads[g]), dtype=np.int64) for g, mods in self.groups.items()}

    def by_module(self, masks):
        out = {}
        for g, mods in self.groups.items():
            for l, mod in enumerate(mods):
                if not np.all(masks[g][l] == 1):
                    out[id(mod)] = [int(v) for v in masks[g][l]]
        return out

    def score(self, masks):
        ids = torch.tensor([self.input])
        with head_mask(self.model, self.by_module(masks)), torch.no_grad():
            if self.kind == "encoder-decoder":
                out = self.output
                logits = self.model(input_ids=ids, decoder_input_ids=torch.tensor([out[:-1]]), use_cache=False).logits[0]
                return sum(log_softmax_at(logits, t - 1, out[t]) for t in range(1, len(out)))
            if self.kind == "encoder":
                logits = self.model(input_ids=ids).logits[0]
                return sum(log_softmax_at(logits, p, t) for p, t in zip(self.positions, self.output))
            whole = self.input + self.output
            logits = self.model(input_ids=torch.tensor([whole[:-1]]), use_cache=False).logits[0]
            P = len(self.input)
            return sum(log_softmax_at(logits, P - 1 + k, t) for k, t in enumerate(self.output))

    def redecode(self, masks):
        """The output with those heads off, and the smallest top-two logit gap on the way."""
        ids = torch.tensor([self.input])
        with head_mask(self.model, self.by_module(masks)), torch.no_grad():
            if self.kind == "encoder":
                logits = self.model(input_ids=ids).logits[0]
                rows = [logits[p] for p in self.positions]
                return [int(torch.argmax(r)) for r in rows], margin_of(rows)
            gen = dict(do_sample=False, output_logits=True, return_dict_in_generate=True)
            if self.kind == "encoder-decoder":
                r = self.model.generate(ids, num_beams=1, **gen)
                return [int(v) for v in r.sequences[0]], margin_of(r.logits)
            n = len(self.output) if hasattr(self, "output") else NEW_TOKENS
            r = self.model.generate(ids, max_new_tokens=n, attention_mask=torch.ones_like(ids), **gen)
            return [int(v) for v in r.sequences[0][len(self.input):]], margin_of(r.logits)

    def rollout(self):
        ids = torch.tensor([self.input])
        with torch.no_grad():
            if self.kind == "encoder-decoder":
                out = self.model(input_ids=ids, decoder_input_ids=torch.tensor([self.output[:-1]]),
                                 output_attentions=True, use_cache=False)
                attentions = {"encoder": out.encoder_attentions, "decoder": out.decoder_attentions}
            else:
                out = self.model(input_ids=ids, output_attentions=True)
                attentions = {list(self.groups)[0]: out.attentions}
        rolled = {}
        for g, layers in attentions.items():
            A = torch.stack(layers)[:, 0].numpy()  # [layers, heads, L, L]
            L = A.shape[-1]
            R, after = np.eye(L), []
            for a in A:
                R = (0.5 * a.mean(0) + 0.5 * np.eye(L)) @ R
                after.append(R)
            rolled[g] = np.stack(after)
        return rolled


def switched_off(task, heads):
    masks = task.kept()
    for g, l, h in heads:
        masks[g][l][h] = 0
    return masks


def analyse(folder):
    task = Task(folder)
    score = task.score(task.full)
    every = [(g, l, h) for g, mods in task.groups.items() for l in range(len(mods)) for h in range(task.heads[g])]
    delta = {g: np.zeros((len(mods), task.heads[g])) for g, mods in task.groups.items()}
    for g, l, h in every:
        delta[g][l][h] = task.score(switched_off(task, [(g, l, h)])) - score
    rank = {head: i for i, head in enumerate(every)}
    order = sorted(every, key=lambda x: (-delta[x[0]][x[1]][x[2]], rank[x]))
    curves = {}
    for line in list(task.groups) + ["all"]:
        line_order = [x for x in order if line == "all" or x[0] == line]
        n, points = len(line_order), []
        for k in range(STEPS + 1):
            off = int(np.floor(n * k / STEPS + 0.5))
            masks = switched_off(task, line_order[:off])
            out, margin = task.redecode(masks)
            points.append({"headsOff": off, "score": task.score(masks), "outputIds": out, "margin": margin})
        curves[line] = points
    one = {"layers": {}, "single": {}}
    best = {}
    for g, mods in task.groups.items():
        in_group = [x for x in order if x[0] == g]
        for l in range(len(mods)):
            keep = [x for x in in_group if x[1] == l][-1]
            masks = switched_off(task, [x for x in in_group if x[1] == l and x != keep])
            one["layers"].setdefault(g, []).append({"layer": keep[1], "head": keep[2], "score": task.score(masks)})
        best[g] = in_group[-1]
        masks = switched_off(task, [x for x in in_group if x != best[g]])
        out, margin = task.redecode(masks)
        one["single"][g] = {"layer": best[g][1], "head": best[g][2], "score": task.score(masks), "outputIds": out,
                            "margin": margin}
    if len(task.groups) > 1:
        masks = switched_off(task, [x for x in order if x != best[x[0]]])
        out, margin = task.redecode(masks)
        one["singleAll"] = {"score": task.score(masks), "outputIds": out, "margin": margin}
    result = {
        "source": "Hugging Face transformers %s (%s.from_pretrained of ../%s, float64, eager attention) on torch %s"
                  % (transformers.__version__, type(task.model).__name__, folder, torch.__version__),
        "folder": folder, "kind": task.kind, "steps": STEPS,
        "input": {"inputIds": task.input, **({"positions": task.positions} if task.kind == "encoder" else {})},
        "reference": {"outputIds": task.output, "score": score},
        "delta": {g: d.ravel().tolist() for g, d in delta.items()},
        "shape": {g: list(d.shape) for g, d in delta.items()},
        "order": [{"group": g, "layer": l, "head": h} for g, l, h in order],
        "curves": curves, "oneHead": one,
        "rollout": {g: {"shape": list(r.shape), "data": r.ravel().tolist()} for g, r in task.rollout().items()},
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, folder + ".json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(rounded(result), separators=(",", ":")) + "\n")
    print(folder, "score %.6f" % score, "heads %d" % len(every))


def rounded(value):
    """Floats at 12 significant digits."""
    if isinstance(value, float):
        return float("%.12g" % value) if np.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def main():
    torch.manual_seed(0)
    for folder in ("hf-marian", "hf-qwen2", "hf-llama", "hf-gpt2-lm", "hf-bert-mlm"):
        analyse(folder)


if __name__ == "__main__":
    main()
