#!/usr/bin/env python3
"""Writes tests/fixtures/sentencepiece/: small SentencePiece unigram models trained
here by the sentencepiece library, and cases.json, what sentencepiece itself gives
for them (encode(text, out_type=str), normalize(text), decode_pieces(pieces)), for
what the Marian fixture's models (tests/tools/make_marian_fixtures.py: nmt_nfkc,
a few dozen pieces) do not reach: near ties between paths of equal pieces (texts
of repeated pieces: sentencepiece keeps float32 path scores), user-defined and
control symbols, byte fallback, and the normalizer's whitespace options
(add_dummy_prefix, remove_extra_whitespaces, treat_whitespace_as_suffix). The
models use the identity normalization (no precompiled map: the Marian fixture has
nmt_nfkc's), so that each stays a few kilobytes.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-
sentencepiece), from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_sentencepiece_cases.py"

Format of cases.json: {"sentencepiece": version, "models": {name: {"encode": [{text,
pieces, normalized (not for the texts of repeated pieces)}], "decode": [{pieces, text}]}}}, each model in NAME.model.
"""
import json
import os
import random
import tempfile

import sentencepiece as spm

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "sentencepiece")
MODELS = {
    "unigram": {},
    "user": {"user_defined_symbols": ["<sep>", "毒蛇", "ab"], "control_symbols": ["<ctl>"]},
    "bytes": {"byte_fallback": True, "character_coverage": 0.98},
    "whitespace": {"add_dummy_prefix": False, "remove_extra_whitespaces": False, "treat_whitespace_as_suffix": True},
}
ZH = "用毒毒毒蛇，毒蛇会不会被毒毒死？我们今天去北京大学学习中文。他说这个问题很难回答。天气很好，我们出去玩吧！猫狗鸟鱼马牛羊鸡"
EN = ("will a venomous snake be poisoned by venom if we poison it the weather is nice today let us go out and play "
      "this is a test sentence with numbers cats dogs birds fish Hello World don't can't it's").split()
ATOMS = list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,?!'-") + [
    "  ", "   ", "\t", "\n", "\u3000", "\u00a0", "\u200b", "\u2581", "\x01", "用", "毒", "蛇", "，", "我们", "北京",
    "㐀", "𠀀", "龘", "ＡＢＣ", "１２３", "é", "e\u0301", "ß", "🐍", "👍🏽", "👨‍👩‍👧", "한국어", "<unk>", "</s>", "<s>",
    "<sep>", "<ctl>", "毒蛇", "ab", "Hello", "venomous", "snake", "don't", "\ufffd",
]


def corpus(rng):
    lines = []
    for _ in range(3000):
        if rng.random() < 0.5:
            lines.append("".join(rng.choice(ZH) for _ in range(rng.randint(5, 30))))
        else:
            lines.append(" ".join(rng.choice(EN) for _ in range(rng.randint(3, 15))) + rng.choice([".", "?", "!", ""]))
    return lines


def main():
    rng = random.Random(17)
    os.makedirs(OUT, exist_ok=True)
    out = {"sentencepiece": spm.__version__, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(corpus(rng)) + "\n")
        for name, options in MODELS.items():
            prefix = os.path.join(OUT, name)
            spm.SentencePieceTrainer.train(input=path, model_prefix=prefix, model_type="unigram", vocab_size=400,
                                           normalization_rule_name="identity", num_threads=1, minloglevel=2, **options)
            os.remove(prefix + ".vocab")
            sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
            pieces = [sp.IdToPiece(i) for i in range(sp.GetPieceSize())]
            words = [p.replace("\u2581", " ") for i, p in enumerate(pieces) if not (sp.IsControl(i) or sp.IsUnknown(i) or sp.IsByte(i))]
            texts = ["", " ", "   ", "a", "  leading", "trailing  ", "多  个   空格", "毒" * 12]
            texts += ["".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 12))) for _ in range(80)]
            cases = {"encode": [], "decode": []}
            for text in texts:
                cases["encode"].append({"text": text, "pieces": sp.encode(text, out_type=str), "normalized": sp.normalize(text)})
            # Repeated pieces: paths of the same pieces in another order, whose sums tie but for rounding.
            for _ in range(150):
                base = [rng.choice(words) for _ in range(rng.randint(1, 3))]
                text = "".join(rng.choice(base) for _ in range(rng.randint(10, 60)))
                cases["encode"].append({"text": text, "pieces": sp.encode(text, out_type=str)})
            extra = ["\u2581", "\u2581\u2581", "xyz", "\u2581hello", "<0x41>", "<0xE6>", "<0x97>", "<0xA5>", "<unk>", "<s>", "a\u2581b"]
            for _ in range(60):
                ps = [rng.choice(pieces) if rng.random() < 0.8 else rng.choice(extra) for _ in range(rng.randint(0, 8))]
                cases["decode"].append({"pieces": ps, "text": sp.decode_pieces(ps)})
            out["models"][name] = cases
    # One case a line: small, and a change shows as the cases it changes.
    line = lambda value: json.dumps(value, ensure_ascii=False)
    with open(os.path.join(OUT, "cases.json"), "w", encoding="utf-8") as f:
        f.write(f'{{"sentencepiece": {line(out["sentencepiece"])}, "models": {{\n')
        for m, (name, cases) in enumerate(out["models"].items()):
            f.write(f' {line(name)}: {{\n')
            for k, key in enumerate(("encode", "decode")):
                rows = ",\n".join(f"   {line(c)}" for c in cases[key])
                f.write(f'  {line(key)}: [\n{rows}\n  ]{"," if k == 0 else ""}\n')
            f.write(f' }}{"," if m < len(out["models"]) - 1 else ""}\n')
        f.write("}}\n")
    print(f"wrote {OUT}: {', '.join(MODELS)}")


main()
