"""The committed tiny checkpoints of tests/fixtures/models as Hugging Face transformers loads them for the head
generators (make_head_output_fixtures.py, make_head_analysis_fixtures.py): in float64 with eager attention, and
heads switched off as transformers 4's head_mask did."""
import contextlib
import json
import os
import sys

import torch

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")


def reference(folder):
    """The folder's reference.json."""
    with open(os.path.join(MODELS, folder, "reference.json"), encoding="utf-8") as f:
        return json.load(f)


def load(folder, auto):
    """`auto` (a transformers Auto class) of the folder, in float64 with eager attention, in eval mode."""
    return auto.from_pretrained(os.path.join(MODELS, folder), dtype=torch.float64, attn_implementation="eager").eval()


@contextlib.contextmanager
def head_mask(model, masks):
    """transformers 4's head_mask: each attention's weights (after softmax) multiplied by mask[head], and so its
    output, since that is the weights times the values. `masks` maps an attention module's id to its layer's row
    of 0/1 (absent: every head kept). Wraps the eager_attention_forward of `model`'s modeling module, which the
    attention modules look up at each call (generate()'s cached steps included); yields the rows of the calls."""
    module = sys.modules[type(model).__module__]
    original = module.eager_attention_forward
    calls = []

    def masked(attention, *args, **kwargs):
        out, weights = original(attention, *args, **kwargs)
        row = masks.get(id(attention))
        calls.append(row)
        if row is None:
            return out, weights
        keep = torch.tensor(row, dtype=weights.dtype)
        return out * keep.view(1, 1, -1, 1), weights * keep.view(1, -1, 1, 1)

    module.eager_attention_forward = masked
    try:
        yield calls
    finally:
        module.eager_attention_forward = original
