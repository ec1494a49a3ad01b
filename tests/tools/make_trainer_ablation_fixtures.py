"""Writes tests/fixtures/train/ablation/heads-off.json: the trained taggers of
tests/fixtures/train (two_heads, four_heads_mlp: their final parameters,
sentences and config, as make_trainer_fixtures.py wrote them) run by PyTorch
in float64 with one head switched off at a time, and with every head off,
for the Jest test of the page's head ablation (web/model/train-ablation.mjs).

A head switched off contributes nothing to the concatenation that W_O maps
back to dModel, as a head mask of 0 does in transformers' eager attention (the
head's output times 0). nn.MultiheadAttention reads out_proj's weight inside
F.multi_head_attention_forward (no hook sees the concatenation), so the head's
input columns of out_proj.weight are set to 0 for the run. The model is
make_trainer_fixtures.py's Tagger (PyTorch's own modules). Run in the sid
chroot of tests/tools/make-hf-chroot.sh (python3-torch):

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_trainer_ablation_fixtures.py"
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_trainer_fixtures import Tagger  # noqa: E402 (the model the fixtures were trained with)

FIXTURES = os.path.join(HERE, "..", "fixtures", "train")
CASES = ["two_heads", "four_heads_mlp"]


def load(model, p, D):
    """The trainer's layout (x·W, src/train/trainer.cpp) into the modules' tensors."""
    t = lambda name, *shape: torch.tensor(p[name], dtype=torch.float64).reshape(*shape)
    with torch.no_grad():
        model.embedding.weight.copy_(t("embedding", -1, D))
        w = torch.cat([t("w" + x, D, D).T for x in "QKV"])
        model.attention.in_proj_weight.copy_(w)
        model.attention.in_proj_bias.copy_(torch.cat([t("b" + x, D) for x in "QKV"]))
        model.attention.out_proj.weight.copy_(t("wO", D, D).T)
        model.attention.out_proj.bias.copy_(t("bO", D))
        if model.mlp is not None:
            hidden = model.mlp[0].out_features
            model.mlp[0].weight.copy_(t("w1", D, hidden).T)
            model.mlp[0].bias.copy_(t("b1", hidden))
            model.mlp[2].weight.copy_(t("w2", hidden, D).T)
            model.mlp[2].bias.copy_(t("b2", D))
        tags = model.classifier.out_features
        model.classifier.weight.copy_(t("wC", D, tags).T)
        model.classifier.bias.copy_(t("bC", tags))


def probabilities(model, fixture, off):
    """Every sentence's tag probabilities with the heads in `off` switched off."""
    c = fixture["config"]
    D, H, L = c["dModel"], c["numHeads"], c["maxLength"]
    dk = D // H
    lengths = [len(s["tokens"]) for s in fixture["sentences"]]
    tok = torch.zeros(len(lengths), L, dtype=torch.long)
    for s, sentence in enumerate(fixture["sentences"]):
        tok[s, : lengths[s]] = torch.tensor(sentence["tokens"])
    padding = torch.arange(L)[None, :] >= torch.tensor(lengths)[:, None]
    weight = model.attention.out_proj.weight
    kept = weight.detach().clone()
    with torch.no_grad():
        for h in off:
            weight[:, h * dk : (h + 1) * dk] = 0.0  # the head's output, times 0, never reaches W_O's sum
        p = torch.softmax(model(tok, padding), -1)
        weight.copy_(kept)
    return [p[s, :n].reshape(-1).tolist() for s, n in enumerate(lengths)]


def main():
    out = {
        "source": f"PyTorch {torch.__version__}, float64, tests/tools/make_trainer_ablation_fixtures.py",
        "cases": [],
    }
    for name in CASES:
        with open(os.path.join(FIXTURES, name + ".json")) as f:
            fixture = json.load(f)
        c = fixture["config"]
        model = Tagger(c["vocabSize"], c["numTags"], c["dModel"], c["numHeads"], c["mlpHidden"]).double()
        load(model, fixture["final"], c["dModel"])
        # The model as loaded gives the fixture's own probabilities: the layout is read right.
        full = probabilities(model, fixture, [])
        for got, want in zip(full, fixture["probabilities"]):
            assert max(abs(a - b) for a, b in zip(got, want)) < 1e-9, name
        heads = list(range(c["numHeads"]))
        out["cases"].append(
            {
                "name": name,
                "off": [[h] for h in heads] + [heads],
                "probabilities": [probabilities(model, fixture, [h]) for h in heads]
                + [probabilities(model, fixture, heads)],
            }
        )
    with open(os.path.join(FIXTURES, "ablation", "heads-off.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
