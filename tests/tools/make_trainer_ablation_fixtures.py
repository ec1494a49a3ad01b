"""Writes tests/fixtures/train/ablation/heads-off.json: the trained taggers of
tests/fixtures/train (two_heads, four_heads_mlp: their final parameters,
sentences and config, as make_trainer_fixtures.py wrote them) run by PyTorch
in float64 with one head switched off at a time, and with every head off,
for the Jest test of the page's head ablation (web/model/train-ablation.mjs).

A head switched off contributes nothing to the concatenation that W_O maps
back to dModel, as a head mask of 0 does in transformers' eager attention (the
head's output times 0). nn.MultiheadAttention reads out_proj's weight inside
F.multi_head_attention_forward (no hook sees the concatenation), so the head's
input columns of out_proj.weight are set to 0 for the run. The model is built
from PyTorch's own modules as in make_trainer_fixtures.py. Run in the sid
chroot of tests/tools/make-hf-chroot.sh (python3-torch):

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_trainer_ablation_fixtures.py"
"""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "train")
CASES = ["two_heads", "four_heads_mlp"]


def positions(L, D):
    t = torch.arange(L, dtype=torch.float64)[:, None]
    i = torch.arange(D)
    angle = t / torch.pow(torch.tensor(10000.0, dtype=torch.float64), (i - i % 2).double() / D)
    return torch.where(i % 2 == 1, torch.cos(angle), torch.sin(angle))


class Tagger(torch.nn.Module):
    def __init__(self, vocab, tags, D, H, hidden):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, D)
        self.attention = torch.nn.MultiheadAttention(D, H, batch_first=True)
        self.mlp = (
            torch.nn.Sequential(torch.nn.Linear(D, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, D))
            if hidden
            else None
        )
        self.classifier = torch.nn.Linear(D, tags)

    def forward(self, tokens, padding):
        x = self.embedding(tokens) + positions(tokens.shape[1], self.embedding.embedding_dim)
        x = x.masked_fill(padding[..., None], 0.0)
        a, _ = self.attention(x, x, x, key_padding_mask=padding, need_weights=False)
        h = x + a
        if self.mlp is not None:
            h = h + self.mlp(h)
        return self.classifier(h)

    def load(self, p, D):
        """The trainer's layout (x·W, src/train/trainer.cpp) into the modules' tensors."""
        t = lambda name, *shape: torch.tensor(p[name], dtype=torch.float64).reshape(*shape)
        with torch.no_grad():
            self.embedding.weight.copy_(t("embedding", -1, D))
            w = torch.cat([t("w" + x, D, D).T for x in "QKV"])
            self.attention.in_proj_weight.copy_(w)
            self.attention.in_proj_bias.copy_(torch.cat([t("b" + x, D) for x in "QKV"]))
            self.attention.out_proj.weight.copy_(t("wO", D, D).T)
            self.attention.out_proj.bias.copy_(t("bO", D))
            if self.mlp is not None:
                hidden = self.mlp[0].out_features
                self.mlp[0].weight.copy_(t("w1", D, hidden).T)
                self.mlp[0].bias.copy_(t("b1", hidden))
                self.mlp[2].weight.copy_(t("w2", hidden, D).T)
                self.mlp[2].bias.copy_(t("b2", D))
            tags = self.classifier.out_features
            self.classifier.weight.copy_(t("wC", D, tags).T)
            self.classifier.bias.copy_(t("bC", tags))


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
        model.load(fixture["final"], c["dModel"])
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
