#!/usr/bin/python3
"""Writes tests/fixtures/models/<name>/: tiny random checkpoints laid out like
folders downloaded from the Hugging Face Hub (config.json, safetensors
weights, tokenizer files), each with a reference.json of the hidden states and
attention weights of a few inputs, for the tests of the checkpoint loader.
Needs Debian's python3-torch and python3-numpy (apt-get install -y
--no-install-recommends python3-torch python3-numpy), hence /usr/bin/python3:

    /usr/bin/python3 tests/tools/make_model_fixtures.py

Only this script needs torch; the tests read the files it writes. It also
writes tests/fixtures/models/README.md (the format, the folders, the rules).

Nothing here uses the project's code or the `transformers`/`tokenizers`
packages:
* the safetensors files are written (and read back, with the checks of a
  small independent reader) with `struct`;
* the token ids come from the script's own WordPiece (BERT basic tokenization,
  then greedy longest-match-first) and byte-level BPE (GPT-2 pre-split,
  bytes_to_unicode, merges by rank);
* its references (then replaced by those of transformers itself: run
  tests/tools/make_hf_fixtures.py after this script, which checks that the
  two agree) come from hand-written PyTorch modules whose parameter names
  are the Hugging Face ones (BertModel, GPT2Model), run in float64 on the
  weights as read back from the file (so after rounding to F16/BF16 for those
  folders). Layer 0 of each model is checked against PyTorch's own modules:
  its attention against torch.nn.MultiheadAttention (need_weights=True,
  average_attn_weights=False), the whole layer against
  torch.nn.TransformerEncoderLayer (post-LN for BERT, norm_first for GPT-2).
The folders' total size is asserted to stay under 2 MB.

The pieces are in tests/tools/model_fixtures/: common (sizes, inputs,
tolerances), checkpoints (number formats, safetensors, random weights),
tokenizers and vocabularies, models (the hand-written modules), checks
(against PyTorch's modules), reference (reference.json), folders (one
function per model family), readme.
"""
import os
import shutil
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the sources

from model_fixtures.common import OUT_DIR
from model_fixtures.folders import make_berts, make_gpt2s, make_roberta
from model_fixtures.readme import write_readme
from model_fixtures.tokenizers import self_checks


def main():
    torch.manual_seed(0)
    self_checks()
    os.makedirs(OUT_DIR, exist_ok=True)
    for folder in ("bert-zh", "bert-zh-vocab", "bert-bf16", "roberta", "gpt2", "gpt2-sharded"):
        shutil.rmtree(os.path.join(OUT_DIR, folder), ignore_errors=True)
    results = make_berts() + make_roberta() + make_gpt2s()
    write_readme(results)
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(OUT_DIR) for f in fs)
    print("total %d bytes" % total)
    assert total < 2_000_000


if __name__ == "__main__":
    main()
