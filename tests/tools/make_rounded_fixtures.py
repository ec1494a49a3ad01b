#!/usr/bin/env python3
"""Writes tests/fixtures/models/rounded/: the weight matrices of two float32
checkpoints (hf-qwen2: nn.Linear, hf-gpt2-lm: GPT-2's Conv1D) rounded to
bfloat16 and to float16 by PyTorch itself (tensor.to(torch.bfloat16),
tensor.to(torch.float16): round to nearest, ties to even), every other tensor
(norms, biases, position tables) left float32 as it is. mha-wasm holds the
same tensors in 16 bits when asked to (loadModel(..., { weights: 'bf16' })),
rounding them itself: tests/js/model-weights.test.mjs checks that its
rounding and its 16-bit products give bit for bit what these files give held
as float32.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh, from the
repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_rounded_fixtures.py"
"""
import os

import torch
from safetensors.torch import load_file, save_file

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "fixtures", "models")
OUT = os.path.join(MODELS, "rounded")

# The 2-D tensors mha-wasm holds as vectors (looked up a row at a time, never multiplied by).
VECTORS = ("wpe.weight",)


def is_matrix(name, tensor):
    return tensor.dim() == 2 and tensor.is_floating_point() and not name.endswith(VECTORS)


def main():
    os.makedirs(OUT, exist_ok=True)
    for folder in ("hf-qwen2", "hf-gpt2-lm"):
        tensors = load_file(os.path.join(MODELS, folder, "model.safetensors"))
        assert all(t.dtype == torch.float32 for t in tensors.values() if t.is_floating_point()), folder
        for suffix, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            rounded = {
                name: (t.to(dtype) if is_matrix(name, t) else t).contiguous() for name, t in tensors.items()
            }
            path = os.path.join(OUT, f"{folder}.{suffix}.safetensors")
            save_file(rounded, path, metadata={"format": "pt"})
            print(path, sum(1 for n, t in tensors.items() if is_matrix(n, t)), "matrices rounded")


if __name__ == "__main__":
    main()
