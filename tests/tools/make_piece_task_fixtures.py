#!/usr/bin/env python3
"""Writes tests/fixtures/tasks/roberta-token-classification/, roberta-question-answering/ and
xlm-roberta-token-classification/: the task heads on a byte-level BPE tokenizer (tests/fixtures/models/hf-roberta's)
and on a SentencePiece-style one (hf-xlm-roberta's: Unigram, NFKC, Metaspace), whose offsets the engine finds as
it does WordPiece's, with what transformers itself returns. Both tokenizers as PreTrainedTokenizerFast over their
tokenizer.json, as the engine runs them (this chroot's RobertaTokenizer does not load, and its XLMRobertaTokenizer
cuts spaces otherwise than the file: tests/fixtures/tasks/token-offsets.json). RobertaForTokenClassification (seed 16) and XLMRobertaForTokenClassification (seed 18): each case's logits
and transformers' token-classification pipeline with every aggregation_strategy (none, simple, first, average,
max): a tokenizer with no continuing_subword_prefix, so the pipeline's fallback heuristic decides which tokens
continue a word (a token whose first character follows no space), and convert_tokens_to_string (the ByteLevel
or the Metaspace decoder) spells the words. RobertaForQuestionAnswering (seed 17): start and end logits and the span transformers
4's question-answering pipeline chooses (make_task_fixtures.answer_span), with its characters in the context.
Parameters redrawn from a seeded generator, saved as float32, run in float64 (make_task_fixtures.make).

Runs in the chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run /var/tmp/sid-root --bind "$PWD" -- \\
        python3 "$PWD/tests/tools/make_piece_task_fixtures.py"
"""
import os
import sys

import torch
import transformers
from transformers import pipeline

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_task_fixtures as tasks  # noqa: E402

# Words of several pieces, spaces doubled, punctuation against words, an accent, Chinese, an emoji.
TEXTS = [
    "Poisonous snakes, unpoisoned: Café owners didn't poison them again.",
    "We poison the venomous snake with venom.",
    "用毒毒毒蛇，毒蛇会不会被毒毒死",
    "snakes  and   venom",
    "🐍 venom",
]
STRATEGIES = ["none", "simple", "first", "average", "max"]
QUESTIONS = tasks.QUESTIONS + [
    {"question": "Who poisons the snake?", "context": "We poison the venomous snake with venom, a Café owner said."}
]


def tokenizer_of(folder):
    """The folder's tokenizer.json as PreTrainedTokenizerFast runs it, with the special tokens of both models."""
    return transformers.PreTrainedTokenizerFast(
        tokenizer_file=os.path.join(tasks.MODELS, folder, "tokenizer.json"), bos_token="<s>", eos_token="</s>",
        sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")


tasks.tokenizer_of = tokenizer_of  # make() saves this tokenizer with the checkpoint


def token_classification(folder, tokenizer_folder, cls, seed):
    path, tok, model = tasks.make(folder, tokenizer_folder, cls, seed, id2label=tasks.ENTITIES,
                                  label2id={v: k for k, v in tasks.ENTITIES.items()})
    cases = []
    for text in TEXTS:
        ids, out = tasks.logits_of(model, tok, text)
        case = {"input": text, "inputIds": ids, "logits": out.logits[0].tolist(), "pipelines": {}}
        for strategy in STRATEGIES:
            tag = pipeline("token-classification", model=model, tokenizer=tok, aggregation_strategy=strategy)
            case["pipelines"][strategy] = tasks.plain(tag(text))
        cases.append(case)
    tasks.write(path, {"source": tasks.source(cls, seed), "cases": cases})


def question_answering(seed):
    cls = transformers.RobertaForQuestionAnswering
    path, tok, model = tasks.make("roberta-question-answering", "hf-roberta", cls, seed)
    cases = []
    for q in QUESTIONS:
        enc = tok(q["question"], q["context"], return_tensors="pt", return_offsets_mapping=True)
        with torch.no_grad():
            out = model(input_ids=enc["input_ids"])
        span = tasks.answer_span(enc, out.start_logits[0].tolist(), out.end_logits[0].tolist(), q["context"])
        cases.append({"input": q, "inputIds": enc["input_ids"][0].tolist(),
                      "startLogits": out.start_logits[0].tolist(), "endLogits": out.end_logits[0].tolist(),
                      "pipeline": tasks.plain(span)})
    tasks.write(path, {"source": tasks.source(cls, seed), "cases": cases})


if __name__ == "__main__":
    token_classification("roberta-token-classification", "hf-roberta", transformers.RobertaForTokenClassification, 16)
    question_answering(17)
    token_classification("xlm-roberta-token-classification", "hf-xlm-roberta",
                         transformers.XLMRobertaForTokenClassification, 18)
