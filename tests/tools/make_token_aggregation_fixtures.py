#!/usr/bin/env python3
"""Writes tests/fixtures/tasks/bert-token-classification/aggregation.json: what transformers' own
token-classification pipeline (TokenClassificationPipeline, its tokenizer a fast one: the character offsets
and continuing_subword_prefix decide is_subword) returns with each aggregation_strategy ("none", "simple",
"first", "average", "max") on the committed checkpoint tests/fixtures/tasks/bert-token-classification (made by
make_task_fixtures.py), run in float64, for sentences with words cut into several WordPiece tokens, accents,
punctuation, an unknown character and Chinese characters.

Runs in the chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_token_aggregation_fixtures.py"
"""
import json
import os

import numpy as np
import torch
import transformers
from transformers import AutoTokenizer, BertForTokenClassification, pipeline

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "..", "fixtures", "tasks", "bert-token-classification")
# Of 600 random sentences of the vocabulary's words (a seeded search, not kept), three on which "first",
# "average" and "max" each give other entities; then unknown words, an accent, an apostrophe, Chinese.
TEXTS = [
    "venom if if, venom poisonous venom Venomous it",
    "a. venom Venomous we be. the poisons venomous, venomous",
    "poisons withs, by poisoned. poisonous, snake",
    "Poisonous snakes, unpoisoned: Café owners didn't poison them ☃ again.",
    "用毒毒毒蛇，毒蛇会不会被毒毒死",
]
STRATEGIES = ["none", "simple", "first", "average", "max"]


def plain(value):
    """Pipeline results as JSON: numpy and torch numbers as floats."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def main():
    tok = AutoTokenizer.from_pretrained(FOLDER)
    assert tok.is_fast
    model = BertForTokenClassification.from_pretrained(FOLDER, attn_implementation="eager").double().eval()
    cases = []
    for text in TEXTS:
        enc = tok(text)
        case = {"input": text, "tokens": tok.convert_ids_to_tokens(enc["input_ids"]), "pipelines": {}}
        for strategy in STRATEGIES:
            tag = pipeline("token-classification", model=model, tokenizer=tok, aggregation_strategy=strategy)
            case["pipelines"][strategy] = plain(tag(text))
        cases.append(case)
    source = ("Hugging Face transformers %s TokenClassificationPipeline (BertForTokenClassification, eager "
              "attention, float64) on torch %s" % (transformers.__version__, torch.__version__))
    with open(os.path.join(FOLDER, "aggregation.json"), "w", encoding="utf-8") as f:
        json.dump({"source": source, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
