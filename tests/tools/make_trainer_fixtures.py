#!/usr/bin/python3
"""Writes tests/fixtures/train/*.json: a few Adam steps of the trainer's tagger
(src/train/trainer.hpp) done by PyTorch in float64, for the Jest trainer tests.
Needs Debian's python3-torch and python3-numpy, hence /usr/bin/python3:

    /usr/bin/python3 tests/tools/make_trainer_fixtures.py

The model is built from PyTorch's own modules, not from our code:
nn.Embedding, sinusoidal positions, nn.MultiheadAttention (batch_first,
key_padding_mask), residual, an optional nn.Linear-ReLU-nn.Linear MLP with a
residual, nn.Linear to the tags, F.cross_entropy(ignore_index=-1) over the
real tokens, torch.optim.Adam. Every step uses the whole set of sentences (the
trainer, given batchSize = count, does the same in a shuffled order, which
changes no mean). Parameters are stored in the trainer's layout (x·W, so
W = PyTorch's weight transposed).

Adam's epsilon is 1e-3 here, not 1e-8: with a tiny epsilon the first steps
move every parameter by ±lr whatever the size of its gradient, so a gradient
that is 1e-9 in float64 and −1e-9 in float32 would differ by 2·lr; with 1e-3
the update is continuous in the gradient and float32 can be compared.
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "train")
DEBIAN_VERSION = "1.13.1+dfsg-4"

CASES = [
    # name, description, vocab, tags, maxLength, dModel, heads, mlpHidden, sentences, steps, seed
    ("two_heads", "2 heads of width 4, no MLP, 9 sentences of 1 to 7 tokens, some tokens without loss", 6, 4, 7, 8, 2, 0, 9, 5, 1),
    ("four_heads_mlp", "4 heads of width 2 and an MLP of 12, 10 sentences (two shards of the trainer)", 6, 3, 7, 8, 4, 12, 10, 5, 2),
    ("one_head_d16", "the page's size: 1 head, dModel 16, vocabulary 12, 4 tags, up to 15 tokens, 20 sentences", 12, 4, 15, 16, 1, 0, 20, 3, 3),
]
LEARNING_RATE, BETAS, EPSILON = 0.01, (0.9, 0.999), 1e-3


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
        self.mlp = torch.nn.Sequential(torch.nn.Linear(D, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, D)) if hidden else None
        self.classifier = torch.nn.Linear(D, tags)

    def forward(self, tokens, padding):
        x = self.embedding(tokens) + positions(tokens.shape[1], self.embedding.embedding_dim)
        x = x.masked_fill(padding[..., None], 0.0)
        a, _ = self.attention(x, x, x, key_padding_mask=padding, need_weights=False)
        h = x + a
        if self.mlp is not None:
            h = h + self.mlp(h)
        return self.classifier(h)

    # The trainer's names and layout (src/train/trainer.cpp) <-> the modules' tensors.
    def ours(self):
        D = self.embedding.embedding_dim
        w, b = self.attention.in_proj_weight, self.attention.in_proj_bias
        p = {"embedding": self.embedding.weight}
        for k, x in enumerate("QKV"):
            p["w" + x] = w[k * D:(k + 1) * D].T
            p["b" + x] = b[k * D:(k + 1) * D]
        p["wO"], p["bO"] = self.attention.out_proj.weight.T, self.attention.out_proj.bias
        if self.mlp is not None:
            p["w1"], p["b1"] = self.mlp[0].weight.T, self.mlp[0].bias
            p["w2"], p["b2"] = self.mlp[2].weight.T, self.mlp[2].bias
        p["wC"], p["bC"] = self.classifier.weight.T, self.classifier.bias
        return {k: v.detach().numpy().reshape(-1).tolist() for k, v in p.items()}


def make(name, description, vocab, tags, L, D, H, hidden, count, steps, seed):
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    model = Tagger(vocab, tags, D, H, hidden).double()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:  # nonzero biases, so that their gradients are checked too
                p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, p.shape)))
            p.copy_(p.float().double())  # start from float32 values: exactly what the trainer is given
    initial = model.ours()

    lengths = [1 + int(rng.integers(L)) for _ in range(count)]
    lengths[0] = L  # the longest sentence is in the set
    sentences = []
    tok = torch.zeros(count, L, dtype=torch.long)
    tag = torch.full((count, L), -1, dtype=torch.long)
    for s, n in enumerate(lengths):
        t = rng.integers(vocab, size=n)
        g = rng.integers(tags, size=n)
        g[rng.random(n) < 0.2] = -1  # no loss at these tokens
        tok[s, :n] = torch.from_numpy(t)
        tag[s, :n] = torch.from_numpy(g)
        sentences.append({"tokens": t.tolist(), "tags": g.tolist()})
    padding = torch.arange(L)[None, :] >= torch.tensor(lengths)[:, None]

    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE, betas=BETAS, eps=EPSILON)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        logits = model(tok, padding)
        loss = F.cross_entropy(logits.reshape(-1, tags), tag.masked_fill(padding, -1).reshape(-1), ignore_index=-1)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        probabilities = torch.softmax(model(tok, padding), -1)
    return {
        "name": name,
        "description": description,
        "source": f"PyTorch {torch.__version__} (Debian python3-torch {DEBIAN_VERSION}), float64, tests/tools/make_trainer_fixtures.py",
        "config": {"vocabSize": vocab, "numTags": tags, "maxLength": L, "dModel": D, "numHeads": H, "mlpHidden": hidden,
                   "learningRate": LEARNING_RATE, "beta1": BETAS[0], "beta2": BETAS[1], "epsilon": EPSILON},
        "steps": steps,
        "sentences": sentences,
        "initial": initial,
        "losses": losses,
        "final": model.ours(),
        "probabilities": [probabilities[s, :n].reshape(-1).tolist() for s, n in enumerate(lengths)],
    }


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for case in CASES:
        fixture = make(*case)
        with open(os.path.join(OUT_DIR, case[0] + ".json"), "w") as f:
            json.dump(fixture, f)
            f.write("\n")
        print(case[0], "losses", ["%.6f" % x for x in fixture["losses"]])


if __name__ == "__main__":
    main()
