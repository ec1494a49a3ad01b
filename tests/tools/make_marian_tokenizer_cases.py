#!/usr/bin/env python3
"""Writes tests/fixtures/models/hf-marian/tokenizer-cases.json: what transformers'
MarianTokenizer gives for the fixture folder's tokenizer (source.spm, target.spm,
vocab.json, tokenizer_config.json, as make_marian_fixtures.py wrote them), on the
texts where a port of it can go wrong and a fixture's few sentences would not
show it: NFKC folding (full-width letters and digits, ligatures, circled
numbers, combining accents), whitespace runs and unusual spaces, characters no
piece covers (rare CJK, emoji, their ZWJ sequences), control characters, the
empty string, >>lang<< codes (known, unknown, twice, not first), special tokens
written in the text (</s>, <unk>, <pad>; <s>, which is a control piece of the
SentencePiece model and no token of Marian's), and the decoding of ids with
special tokens inside, with and without skip_special_tokens. Also the decoding
with separate_vocabs (vocab.json given as target_vocab.json too), where
transformers decodes with target.spm instead of source.spm.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-
transformers 5.x, python3-sentencepiece), from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_marian_tokenizer_cases.py" [FOLDER [OUT]]

FOLDER defaults to tests/fixtures/models/hf-marian, OUT to FOLDER/tokenizer-cases.json.
Format: {"transformers", "sentencepiece", "tokenizer": [{text, inputIds, tokens, idTokens}],
"decode": [{ids, skipSpecialTokens, text}], "separateVocabs": {"decode": [...]}}, where
tokens is tokenizer.tokenize(text) (no </s>) and idTokens convert_ids_to_tokens(inputIds).
"""
import json
import os
import random
import sys
import warnings

import sentencepiece
import transformers
from transformers import MarianTokenizer

warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses.")

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "fixtures", "models", "hf-marian")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(FOLDER, "tokenizer-cases.json")

TEXTS = [
    "",
    " ",
    "   \t\n  ",
    "用毒毒毒蛇，毒蛇会不会被毒毒死？",
    "Will a venomous snake be poisoned by venom, if we poison it (2024)?",
    "用毒毒毒蛇，毒蛇会不会被毒毒死？ Will a venomous snake be poisoned by venom, if we poison it (2024)?",
    # NFKC, as nmt_nfkc's map has it
    "ＡＢＣ１２３，全角！？",
    "\u3000全角\u3000空格\u3000",
    "ﬁ ① ㎏ Ⅻ ½ Ω Å ｶﾞ ～ 〜 … \ufdfa",
    "café cafe\u0301 Straße İstanbul",
    # whitespace
    "a   b\t\tc\n\nd",
    "  leading and trailing  ",
    "多  个   空格",
    "no\u00a0break\u2009thin\u200bzero\ufeffbom\u2028line",
    # characters no piece has
    "㐀𠀀龘",
    "🐍👍🏽👨‍👩‍👧🇨🇳",
    "蛇🐍蛇",
    "\x01\x7f\x00控制",
    "\ufffd\u2581▁",
    "한국어 ไทย العربية",
    # language codes
    ">>fra<< Will a snake be poisoned?",
    ">>fra<<毒蛇",
    ">>zzz<< an unknown code",
    ">>fra<<>>deu<< two codes",
    " >>fra<< not first",
    ">>no end",
    ">><<",
    "<<>>",
    # special tokens in the text
    "a</s>b",
    "</s>",
    "<unk> and <pad>",
    "蛇<pad><pad>蛇",
    "</s></s> x </s",
    "<s> is a control piece",
    # longer
    "毒蛇会被毒死吗？" * 30,
]

random.seed(5)


def main():
    tok = MarianTokenizer.from_pretrained(FOLDER)
    out = {
        "transformers": transformers.__version__,
        "sentencepiece": sentencepiece.__version__,
        "tokenizer": [],
        "decode": [],
        "separateVocabs": {"decode": []},
    }
    encodings = []
    for text in TEXTS:
        ids = tok(text)["input_ids"]
        encodings.append(ids)
        out["tokenizer"].append(
            {"text": text, "inputIds": ids, "tokens": tok.tokenize(text), "idTokens": tok.convert_ids_to_tokens(ids)}
        )
    vocab = tok.get_vocab()
    special = [tok.eos_token_id, tok.unk_token_id, tok.pad_token_id]
    codes = [vocab[c] for c in vocab if c.startswith(">>") and c.endswith("<<")]
    id_lists = list(encodings)
    id_lists += [
        [],
        special,
        [tok.pad_token_id] * 3 + encodings[3][:4] + [tok.eos_token_id] + encodings[4][:5],
        encodings[4][:3] + [tok.unk_token_id] + encodings[4][3:],
        codes[:2] + encodings[3],
    ]
    # Random ids over the whole vocabulary, and ids of pieces that source.spm lacks (which it decodes as they
    # are, a leading ▁ included) next to special tokens (after which a known piece loses its leading ▁).
    source = sentencepiece.SentencePieceProcessor(model_file=os.path.join(FOLDER, "source.spm"))
    unknown_to_source = [i for p, i in vocab.items() if source.PieceToId(p) == source.unk_id() and i not in special]
    for _ in range(40):
        id_lists.append([random.randrange(len(vocab)) for _ in range(random.randint(1, 12))])
    for _ in range(20):
        pool = special + (unknown_to_source or special) + encodings[4]
        id_lists.append([random.choice(pool) for _ in range(random.randint(1, 10))])
    for ids in id_lists:
        for skip in (False, True):
            out["decode"].append({"ids": ids, "skipSpecialTokens": skip, "text": tok.decode(ids, skip_special_tokens=skip)})
    separate = MarianTokenizer(
        os.path.join(FOLDER, "source.spm"),
        os.path.join(FOLDER, "target.spm"),
        os.path.join(FOLDER, "vocab.json"),
        target_vocab_file=os.path.join(FOLDER, "vocab.json"),
        separate_vocabs=True,
    )
    for ids in id_lists:
        for skip in (False, True):
            out["separateVocabs"]["decode"].append(
                {"ids": ids, "skipSpecialTokens": skip, "text": separate.decode(ids, skip_special_tokens=skip)}
            )
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(out['tokenizer'])} texts, {len(out['decode'])} + {len(out['separateVocabs']['decode'])} decodings")


main()
