#!/usr/bin/env python3
"""Writes tests/fixtures/models/head-outputs/<folder>.json: what each attention
head of Hugging Face transformers' own modules writes (Kobayashi et al. 2020,
"Attention is Not Only a Weight"), layer by layer, for the cases of a fixture
folder's reference.json and one case with heads switched off: the norm of
each token's transformed value ‖f_h(x_j)‖ = ‖v_h(x_j)·W_O^h‖, and of each
head's output at each query ‖Σ_j α_ij f_h(x_j)‖ = ‖head_h(i)·W_O^h‖, W_O^h
being head h's rows of the output projection (its bias left out). One folder
per code path: BERT (hf-bert-mlm; bert-bf16, whose bfloat16 matrices the
engine multiplies in 16 bits), GPT-2's Conv1D (hf-gpt2-lm), Llama (hf-llama),
Qwen2's grouped-query attention (hf-qwen2), Qwen3's head_dim wider than
hidden_size / heads (hf-qwen3), and MarianMT's encoder, decoder and
cross-attention (hf-marian). The engine returns them as
model.run(input, { returnHeadOutputs: true }).headOutputs:
tests/js/model-head-outputs.test.mjs compares the two.

How they are caught, on the model loaded in float64 with eager attention:
forward hooks on each attention block's value projection (BERT's value,
GPT-2's c_attn, whose last third is the values, Llama's and Marian's v_proj:
the values of the key/value heads, before repeat_kv) and a pre-hook on its
output projection (BERT's attention.output.dense, GPT-2's c_proj, o_proj,
out_proj), whose input is the heads' outputs side by side; both are then
multiplied by each head's slice of that projection's weight. The script
checks that the projection's own output is the sum over heads plus its bias,
that each head's output is Σ_j α_ij v(x_j) with transformers' attention
weights (output_attentions), query head h over key/value head h // (heads /
key heads), and that those weights are the folder's reference.json's. Heads
are switched off as transformers 4's head_mask did (make_marian_fixtures.py
emulates it the same way): each modeling module's eager_attention_forward is
wrapped, its weights and its output multiplied by the layer's mask.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh, from the
repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_head_output_fixtures.py"

Writes its section of tests/fixtures/models/TRANSFORMERS.md (between its
markers; the other generators keep it).
"""
import os
import sys

import numpy as np
import torch
import transformers

transformers.logging.set_verbosity_error()
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_fixtures.reference import write_sections  # noqa: E402 (arrays at 12 significant digits, read back)
from fixture_docs import write_section  # noqa: E402
from hf_checkpoints import MODELS, head_mask, load, reference as read_reference  # noqa: E402

OUT = os.path.join(MODELS, "head-outputs")
# One folder per code path (see the top of this file).
STACKS = ("hf-bert-mlm", "bert-bf16", "hf-gpt2-lm", "hf-llama", "hf-qwen2", "hf-qwen3")
DECODERS = ("gpt2", "llama", "qwen2", "qwen3")


class Block:
    """One attention block: where its values and its heads' outputs are caught, and its W_O^h."""

    def __init__(self, attention, value, out, heads, kv_heads, head_dim, value_part=None, conv=False):
        self.attention, self.out, self.heads, self.kv_heads, self.hd = attention, out, heads, kv_heads, head_dim
        self.values = self.inputs = self.output = None
        self.value_part = value_part  # GPT-2: the columns of c_attn's output that are the values
        self.conv = conv  # GPT-2's Conv1D keeps its weight [in, out], nn.Linear [out, in]
        self.handles = [value.register_forward_hook(self.keep_values),
                        out.register_forward_pre_hook(self.keep_inputs), out.register_forward_hook(self.keep_output)]

    def keep_values(self, module, args, output):
        v = output[0].detach()
        self.values = v if self.value_part is None else v[:, self.value_part]

    def keep_inputs(self, module, args):
        self.inputs = args[0][0].detach()

    def keep_output(self, module, args, output):
        self.output = output[0].detach()

    def w_o(self, h):
        """W_O^h, [head_dim, hidden]: the rows of the output projection's [heads·head_dim, hidden] head h reads."""
        w = self.out.weight.detach()
        part = slice(h * self.hd, (h + 1) * self.hd)
        return w[part, :] if self.conv else w[:, part].T

    def norms(self, attention):
        """valueNorms [heads, L_values] and headOutputNorms [heads, L_queries] of the last call, checked against
        the projection's output and against `attention` [heads, queries, keys], transformers' weights."""
        H, G, hd = self.heads, self.kv_heads, self.hd
        values = self.values.reshape(self.values.shape[0], G, hd)
        inputs = self.inputs.reshape(self.inputs.shape[0], H, hd)
        bias = self.out.bias.detach() if self.out.bias is not None else 0
        total = bias + sum(inputs[:, h] @ self.w_o(h) for h in range(H))
        assert torch.max(torch.abs(total - self.output)) < 1e-12 * (1 + torch.max(torch.abs(self.output)))
        value_norms, head_norms = [], []
        for h in range(H):
            v = values[:, h // (H // G)]
            assert torch.max(torch.abs(attention[h] @ v - inputs[:, h])) < 1e-12, "a head's output is Σ_j α_ij v_j"
            value_norms.append(torch.linalg.vector_norm(v @ self.w_o(h), dim=-1))
            head_norms.append(torch.linalg.vector_norm(inputs[:, h] @ self.w_o(h), dim=-1))
        return torch.stack(value_norms), torch.stack(head_norms)

    def remove(self):
        for handle in self.handles:
            handle.remove()


def stack_blocks(model, family):
    """A stack's blocks, layer by layer."""
    cfg = model.config
    H = cfg.num_attention_heads
    G = getattr(cfg, "num_key_value_heads", None) or H
    hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // H
    if family == "bert":
        return [Block(l.attention.self, l.attention.self.value, l.attention.output.dense, H, G, hd)
                for l in model.encoder.layer]
    if family == "gpt2":
        D = cfg.hidden_size
        return [Block(b.attn, b.attn.c_attn, b.attn.c_proj, H, G, hd, slice(2 * D, 3 * D), conv=True) for b in model.h]
    return [Block(l.self_attn, l.self_attn.v_proj, l.self_attn.o_proj, H, G, hd) for l in model.layers]


def marian_blocks(model):
    """MarianMT's blocks by group: encoder, decoder (self-attention) and cross."""
    cfg = model.config
    D = cfg.d_model

    def block(a, heads):
        return Block(a, a.v_proj, a.out_proj, heads, heads, D // heads)

    return {"encoder": [block(l.self_attn, cfg.encoder_attention_heads) for l in model.encoder.layers],
            "decoder": [block(l.self_attn, cfg.decoder_attention_heads) for l in model.decoder.layers],
            "cross": [block(l.encoder_attn, cfg.decoder_attention_heads) for l in model.decoder.layers]}


def off_heads(layers, heads):
    """The switched-off case's mask: head (l + 1) mod heads of layer l off."""
    return [[0 if h == (l + 1) % heads else 1 for h in range(heads)] for l in range(layers)]


def make_stack(folder):
    reference = read_reference(folder)
    family = reference["config"]["modelType"]
    causal = family in DECODERS
    model = load(folder, transformers.AutoModel)
    blocks = stack_blocks(model, family)
    H, G, hd = blocks[0].heads, blocks[0].kv_heads, blocks[0].hd
    mask = off_heads(len(blocks), H)
    runs = [(c, None) for c in reference["cases"]] + [(reference["cases"][0], mask)]
    cases, worst = [], 0.0
    for c, rows in runs:
        ids = c["inputIds"]
        kwargs = {} if causal else {"token_type_ids": torch.tensor([c["tokenTypeIds"]])}
        by_module = {} if rows is None else {id(b.attention): rows[l] for l, b in enumerate(blocks)}
        with head_mask(model, by_module) as calls, torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_attentions=True, **kwargs)
        assert len(calls) == len(blocks), (folder, len(calls))
        attention = torch.stack(out.attentions)[:, 0]
        if rows is None:  # the folder's reference is of the same model and inputs
            worst = max(worst, float(np.max(np.abs(attention.numpy().ravel() - np.asarray(c["attention"])))))
        norms = [b.norms(attention[l]) for l, b in enumerate(blocks)]
        case = {"name": c["name"] if rows is None else c["name"] + "_head_mask", "inputIds": ids}
        if not causal:
            case["tokenTypeIds"] = c["tokenTypeIds"]
        if rows is not None:
            case["headMask"] = rows
            off = np.asarray(rows) == 0
            assert np.all(torch.stack([n[1] for n in norms]).numpy()[off] == 0), (folder, "a head switched off")
        case["valueNorms"] = torch.stack([n[0] for n in norms]).numpy()
        case["headOutputNorms"] = torch.stack([n[1] for n in norms]).numpy()
        cases.append(case)
    for b in blocks:
        b.remove()
    assert worst < 1e-10, (folder, worst)
    group = "decoder" if causal else "encoder"
    head = {"source": source(model, folder), "folder": folder,
            "config": {"modelType": family, "numLayers": len(blocks), "numHeads": H, "numKVHeads": G, "headDim": hd,
                       "group": group}}
    write(folder, head, cases)
    return {"folder": folder, "class": type(model).__name__, "cases": cases, "H": H, "G": G, "hd": hd,
            "groups": [group]}


def make_marian(folder="hf-marian"):
    reference = read_reference(folder)
    model = load(folder, transformers.AutoModel)
    groups = marian_blocks(model)
    cases = []
    for c in reference["forward"] + reference["headMask"]:
        rows = c.get("headMask")
        by_module = {}
        if rows:
            for group, blocks in groups.items():
                by_module.update({id(b.attention): rows[group][l] for l, b in enumerate(blocks)})
        with head_mask(model, by_module) as calls, torch.no_grad():
            out = model(input_ids=torch.tensor([c["inputIds"]]), decoder_input_ids=torch.tensor([c["decoderInputIds"]]),
                        output_attentions=True, use_cache=False)
        assert len(calls) == sum(len(b) for b in groups.values()), len(calls)
        attentions = {"encoder": out.encoder_attentions, "decoder": out.decoder_attentions,
                      "cross": out.cross_attentions}
        case = {"name": c["name"], "inputIds": c["inputIds"], "decoderInputIds": c["decoderInputIds"]}
        if rows:
            case["headMask"] = rows
        for group, blocks in groups.items():
            attention = torch.stack(attentions[group])[:, 0]
            # The folder's reference is of the same model, inputs and head mask.
            want = np.asarray(c[group + "Attention"])
            assert np.max(np.abs(attention.numpy().ravel() - want)) < 1e-10, (c["name"], group)
            norms = [b.norms(attention[l]) for l, b in enumerate(blocks)]
            if rows:
                off = np.asarray(rows[group]) == 0
                assert np.all(torch.stack([n[1] for n in norms]).numpy()[off] == 0), (group, "a head switched off")
            case[group + "ValueNorms"] = torch.stack([n[0] for n in norms]).numpy()
            case[group + "HeadOutputNorms"] = torch.stack([n[1] for n in norms]).numpy()
        cases.append(case)
    for blocks in groups.values():
        for b in blocks:
            b.remove()
    cfg = model.config
    H = cfg.encoder_attention_heads
    head = {"source": source(model, folder), "folder": folder,
            "config": {"modelType": "marian", "numLayers": cfg.encoder_layers, "numHeads": H,
                       "decoderLayers": cfg.decoder_layers, "decoderHeads": cfg.decoder_attention_heads,
                       "headDim": cfg.d_model // H}}
    write(folder, head, cases)
    return {"folder": folder, "class": type(model).__name__, "cases": cases, "H": H, "G": H, "hd": cfg.d_model // H,
            "groups": list(groups)}


def source(model, folder):
    return ("Hugging Face transformers %s (%s.from_pretrained of ../%s, float64, eager attention) on torch %s: "
            "the norms of what each head writes, from its value projection's output and its output projection's "
            "input (forward hooks) times that projection's rows of the head, bias left out"
            % (transformers.__version__, type(model).__name__, folder, torch.__version__))


def write(folder, head, cases):
    os.makedirs(OUT, exist_ok=True)
    write_sections(os.path.join(OUT, folder + ".json"), head, {"cases": cases})
    print(folder, "%d cases" % len(cases))


BEGIN, END = "<!-- BEGIN make_head_output_fixtures.py -->", "<!-- END make_head_output_fixtures.py -->"

DOC = """
## What each head writes: `head-outputs/`

Written by [tests/tools/make_head_output_fixtures.py](../../tools/make_head_output_fixtures.py) (do not edit;
this section is that script's). For each folder below, `head-outputs/<folder>.json` holds, for every case of
the folder's `reference.json` and one more with heads switched off (`headMask`: transformers 4's `head_mask`,
emulated by multiplying each eager attention's weights and output by it), what each attention head writes
(Kobayashi et al. 2020): `valueNorms` [layers, heads, L], ‖v_h(x_j)·W_O^h‖ of each token j, and
`headOutputNorms` [layers, heads, L], ‖head_h(i)·W_O^h‖ = ‖Σ_j α_ij v_h(x_j)·W_O^h‖ at each query i, W_O^h
being head h's rows of the output projection, its bias left out; MarianMT's for its `encoder`, `decoder` and
`cross` groups (`crossValueNorms` over the encoder's positions). The values are caught by forward hooks on the
value projection (GPT-2: the last third of `c_attn`; grouped-query attention: the key/value heads, head h
reading h // (heads / key heads)), the heads' outputs by a pre-hook on the output projection (BERT's
`attention.output.dense`, GPT-2's `c_proj`, `o_proj`, `out_proj`), in Hugging Face transformers
{transformers} on torch {torch}, each model loaded by `AutoModel.from_pretrained(folder, dtype=float64,
attn_implementation="eager")`. The script checks that the output projection's output is the sum of the
heads' parts plus its bias, that each head's output is its attention weights (`output_attentions`) times its
values, that those weights are the folder's `reference.json`'s, and that a switched-off head's output norms
are 0. Arrays C order, 12 significant digits.

{rows}
"""


def document(results):
    rows = "\n".join(
        "* `%s.json` (%s: %s; %d heads, %d key heads, head_dim %d): %s." % (
            r["folder"], r["class"], ", ".join(r["groups"]), r["H"], r["G"], r["hd"],
            ", ".join("`%s` (L=%d)" % (c["name"], len(c["inputIds"])) for c in r["cases"])) for r in results)
    text = DOC.format(transformers=transformers.__version__, torch=torch.__version__, rows=rows)
    write_section(os.path.join(MODELS, "TRANSFORMERS.md"), BEGIN, END, text)


def main():
    document([make_stack(folder) for folder in STACKS] + [make_marian()])


if __name__ == "__main__":
    main()
