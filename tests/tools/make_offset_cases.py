#!/usr/bin/env python3
"""Writes tests/fixtures/tasks/token-offsets.json: where each token lies in the text it was cut from, as Hugging Face
tokenizers gives it (an Encoding's offsets, which transformers returns as return_offsets_mapping), for the
tokenizers of the committed checkpoints whose kinds differ: byte-level BPE (hf-roberta, hf-gpt2-lm, hf-qwen2
with its NFC normalizer), SentencePiece-style BPE with byte fallback (hf-llama, stories260K), Unigram with NFKC
and Metaspace (hf-xlm-roberta, hf-camembert) and WordPiece (hf-bert-mlm, bert-zh), on texts that move offsets:
spaces (leading, doubled, trailing), tabs and newlines, accents composed and not, full-width letters and a
ligature (which NFKC changes), emoji, digits, Chinese, and pairs.

Runs in the chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run /var/tmp/sid-root --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_offset_cases.py"
"""
import json
import os

import tokenizers
from tokenizers import normalizers
import transformers
from transformers import AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
FOLDERS = {
    "hf-roberta": "models/hf-roberta",
    "hf-gpt2-lm": "models/hf-gpt2-lm",
    "hf-qwen2": "models/hf-qwen2",
    "hf-llama": "models/hf-llama",
    "stories260K": "text/stories260K",
    "hf-xlm-roberta": "models/hf-xlm-roberta",
    "hf-camembert": "models/hf-camembert",
    "hf-bert-mlm": "models/hf-bert-mlm",
    "bert-zh": "models/bert-zh",
}
TEXTS = [
    "用毒毒毒蛇，毒蛇会不会被毒毒死",
    "Hello world",
    "  Leading,  doubled   and trailing spaces  ",
    "Poisonous snakes, unpoisoned: Café owners didn't poison them ☃ again.",
    "Cafe\u0301 and caf\u00e9",
    "tabs\tand\nnew\n\nlines",
    "ＡＢＣ ﬁne ①",
    "🐍 snakes 🐍🐍 and 12345 67",
    "a",
    " ",
]
# What nmt_nfkc changes, a grapheme at a time: half-width katakana with its voiced mark, a Hangul syllable in
# jamo, an accent on a letter it has no precomposed form with, a ligature, circled and full-width digits,
# a zero-width joiner inside an emoji, a no-break space, a control character.
PRECOMPILED_TEXTS = [
    "ｶﾞｷﾞ ﾊﾟﾝ",
    "\u1112\u1161\u11ab\uae00",
    "q\u0307 x\u0308y",
    "ﬃ ① ２０２６",
    "👩\u200d💻 codes",
    "no\u00a0break\u0007bell",
]
PAIRS = [
    ["Who poisons the snake?", "We poison the venomous snake with venom."],
    ["毒蛇会不会被毒死？", "用毒毒毒蛇，毒蛇会不会被毒毒死"],
]


def encoded(enc):
    return {"ids": enc.ids, "tokens": enc.tokens, "offsets": [list(o) for o in enc.offsets]}


def main():
    out = {}
    for name, folder in FOLDERS.items():
        # tokenizers itself on the folder's tokenizer.json: what @huggingface/tokenizers runs.
        raw = tokenizers.Tokenizer.from_file(os.path.join(FIXTURES, folder, "tokenizer.json"))
        # transformers' fast tokenizer of the folder, where it loads: the same offsets, asserted. (Its RoBERTa class
        # does not load here: transformers 5.12's RobertaTokenizer passes RobertaProcessing a `cls` argument that
        # tokenizers 0.23 refuses; it would also replace the file's post-processor by RobertaProcessing, which the
        # variant below is.)
        try:
            tok = AutoTokenizer.from_pretrained(os.path.join(FIXTURES, folder))
        except TypeError as error:
            tok = None
            print("%s: transformers' tokenizer does not load (%s); tokenizers alone" % (name, error))
        cases = []
        for text, pair in [(t, None) for t in TEXTS] + [tuple(p) for p in PAIRS]:
            case = {"text": text, **({"textPair": pair} if pair is not None else {})}
            case.update(encoded(raw.encode(text, pair)))
            if tok is not None:
                assert tok.is_fast, name
                enc = tok(text, pair, return_offsets_mapping=True)
                theirs = {"ids": enc["input_ids"], "offsets": [list(o) for o in enc["offset_mapping"]]}
                # Where transformers cuts the text otherwise than its tokenizer.json says (stories260K's leading
                # spaces: tests/js/tokenizer-api.test.mjs's known difference), its encoding is kept beside.
                if theirs["ids"] != case["ids"] or theirs["offsets"] != case["offsets"]:
                    case["transformers"] = theirs
            cases.append(case)
        # A pair cut to 12 tokens, the longer text first (tokenizers' longest_first, as encode's truncation).
        raw.enable_truncation(12)
        for question, context in PAIRS:
            case = {"text": question, "textPair": context, "maxLength": 12}
            case.update(encoded(raw.encode(question, context)))
            cases.append(case)
        raw.no_truncation()
        out[name] = {"cases": cases, "checkedWithTransformers": tok is not None}
    # roberta-base's own tokenizer.json (the Hub's) has RobertaProcessing with trim_offsets, which transformers 5
    # writes as a TemplateProcessing: hf-roberta's with that post-processor, through tokenizers alone.
    with open(os.path.join(FIXTURES, FOLDERS["hf-roberta"], "tokenizer.json"), encoding="utf-8") as f:
        spec = json.load(f)
    spec["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                              "trim_offsets": True, "add_prefix_space": False}
    raw = tokenizers.Tokenizer.from_str(json.dumps(spec))
    cases = []
    for text, pair in [(t, None) for t in TEXTS] + [tuple(p) for p in PAIRS]:
        case = {"text": text, **({"textPair": pair} if pair is not None else {})}
        case.update(encoded(raw.encode(text, pair)))
        cases.append(case)
    out["hf-roberta+RobertaProcessing"] = {"postProcessor": spec["post_processor"], "cases": cases}

    # The Hub's XLM-R tokenizer.json (transformers' XLMRobertaConverter) normalises with a Precompiled charsmap,
    # sentencepiece's nmt_nfkc, then collapses spaces: hf-xlm-roberta's with that normalizer, its charsmap taken
    # from hf-marian's source.spm (an nmt_nfkc model), through tokenizers alone.
    from sentencepiece import sentencepiece_model_pb2 as model_pb2
    proto = model_pb2.ModelProto()
    with open(os.path.join(FIXTURES, "models", "hf-marian", "source.spm"), "rb") as f:
        proto.ParseFromString(f.read())
    charsmap = proto.normalizer_spec.precompiled_charsmap
    assert proto.normalizer_spec.name == "nmt_nfkc" and len(charsmap) > 0, proto.normalizer_spec.name
    with open(os.path.join(FIXTURES, FOLDERS["hf-xlm-roberta"], "tokenizer.json"), encoding="utf-8") as f:
        spec = json.load(f)
    precompiled = normalizers.Precompiled(charsmap)
    spec["normalizer"] = {"type": "Sequence", "normalizers": [
        json.loads(precompiled.__getstate__()),
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    raw = tokenizers.Tokenizer.from_str(json.dumps(spec))
    cases = []
    for text, pair in [(t, None) for t in TEXTS + PRECOMPILED_TEXTS] + [tuple(p) for p in PAIRS]:
        case = {"text": text, **({"textPair": pair} if pair is not None else {})}
        case.update(encoded(raw.encode(text, pair)))
        cases.append(case)
    out["hf-xlm-roberta+Precompiled"] = {"normalizer": spec["normalizer"], "cases": cases}
    source = "Hugging Face tokenizers %s (Tokenizer.encode(text, pair).offsets), checked against transformers %s's fast tokenizers' return_offsets_mapping where they load" % (
        tokenizers.__version__,
        transformers.__version__,
    )
    with open(os.path.join(FIXTURES, "tasks", "token-offsets.json"), "w", encoding="utf-8") as f:
        json.dump({"source": source, "tokenizers": out}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
