#!/usr/bin/env python3
"""Writes tests/fixtures/generation/kinds.json: what Hugging Face
transformers' generate() does, across kinds of model, for the options issue 40
item 7 adds (tests/js/generate-kinds.test.mjs reads it):

- `beams`: a decoder's beam search (num_beams, num_return_sequences,
  length_penalty, early_stopping) on the tiny decoders of
  make_decoder_fixtures.py (hf-qwen2, hf-llama, hf-gpt2-lm): every returned
  sequence (transformers pads the shorter ones after their end-of-text token
  with pad_token_id: cut here after the first end-of-text token of the new
  ids) and its sequences_scores;
- `stopStrings`: generate(stop_strings=..., tokenizer=...) (StopStringCriteria),
  greedy and beams, on those decoders (hf-marian has none: its tiny
  vocabulary cannot spell StopStringCriteria's probe "abcdef", and the
  criterion's set-up fails with "substring not found"; its stop strings are
  tested by their rule);
  the strings are cut from the model's own greedy continuation (the decoded new
  ids): across the boundary of two new ids, the first character of one id's
  text (the id runs on past it), and a string that never comes;
- `minP`: MinPLogitsWarper after TemperatureLogitsWarper, TopKLogitsWarper
  and TopPLogitsWarper (transformers' order of the sampling warpers), applied to
  the logits of a prompt's next token: the logits (float64) and the ids left
  finite. (Sampling itself draws from torch's generator, which no JS code
  reproduces; the tests check sampling by its rules.)

References: each folder loaded by from_pretrained(dtype=float64,
attn_implementation="eager"); every beam and stop-string case is also run in
float32 and must give the same ids (no near-ties).

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \\
        python3 "$PWD/tests/tools/make_generation_fixtures.py"
"""
import json
import os
import sys

import torch
import transformers
transformers.logging.set_verbosity_error()
import warnings  # noqa: E402
warnings.filterwarnings("ignore")
from transformers import (AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer,  # noqa: E402
                          LogitsProcessorList, MinPLogitsWarper, TemperatureLogitsWarper, TopKLogitsWarper,
                          TopPLogitsWarper)

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "fixtures", "models")
OUT = os.path.join(HERE, "..", "fixtures", "generation", "kinds.json")
DECODERS = ["hf-qwen2", "hf-llama", "hf-gpt2-lm"]
TEXTS = ["A venomous snake is poisonous.", "用毒毒毒蛇，毒蛇会不会被毒毒死", "We poison the snake."]


def load(name, dtype):
    cls = AutoModelForSeq2SeqLM if name == "hf-marian" else AutoModelForCausalLM
    kw = {} if name == "hf-marian" else {"attn_implementation": "eager"}
    return cls.from_pretrained(os.path.join(MODELS, name), dtype=dtype, **kw).eval()


def eos_of(model):
    e = model.generation_config.eos_token_id
    return e if isinstance(e, list) else [e]


def cut(seq, start, eos):
    """A returned sequence without the padding after its first end-of-text id (after `start`)."""
    for i in range(start, len(seq)):
        if seq[i] in eos:
            return seq[:i + 1]
    return seq


def run(models, name, ids, options, tok=None):
    """generate() in float64 and float32: the same sequences, or the case is not a reference."""
    outs = []
    for m in models:
        with torch.no_grad():
            x = torch.tensor([ids])
            extra = {} if name == "hf-marian" else {"attention_mask": torch.ones_like(x)}
            if tok is not None:
                extra["tokenizer"] = tok
            outs.append(m.generate(x, **extra, **options, output_scores=True, return_dict_in_generate=True))
    assert outs[0].sequences.tolist() == outs[1].sequences.tolist(), (name, options, outs[0].sequences)
    return outs[0]


BEAM_CASES = [
    ("beams_3_all", TEXTS[0], {"num_beams": 3, "num_return_sequences": 3, "max_new_tokens": 24}),
    ("beams_3_zh", TEXTS[1], {"num_beams": 3, "num_return_sequences": 2, "max_new_tokens": 24}),
    ("beams_5", TEXTS[2], {"num_beams": 5, "num_return_sequences": 5, "max_new_tokens": 24}),
    ("beams_2_short", TEXTS[2], {"num_beams": 2, "max_new_tokens": 8}),
    ("length_penalty_0.5", TEXTS[1], {"num_beams": 4, "num_return_sequences": 4, "max_new_tokens": 24,
                                      "length_penalty": 0.5}),
    ("length_penalty_2", TEXTS[0], {"num_beams": 4, "num_return_sequences": 4, "max_new_tokens": 24,
                                    "length_penalty": 2.0}),
    ("early_stopping_true", TEXTS[1], {"num_beams": 4, "num_return_sequences": 2, "max_new_tokens": 24,
                                       "early_stopping": True}),
    ("early_stopping_never", TEXTS[0], {"num_beams": 3, "num_return_sequences": 3, "max_new_tokens": 24,
                                        "early_stopping": "never", "length_penalty": 1.5}),
]


def beam_cases():
    cases = []
    for name in DECODERS:
        models = [load(name, torch.float64), load(name, torch.float32)]
        tok = AutoTokenizer.from_pretrained(os.path.join(MODELS, name))
        for case, text, options in BEAM_CASES:
            ids = tok(text).input_ids
            out = run(models, name, ids, {**options, "do_sample": False})
            seqs = [cut(s, len(ids), eos_of(models[0])) for s in out.sequences.tolist()]
            cases.append({"model": name, "name": case, "text": text, "inputIds": ids, "options": options,
                          "sequences": seqs, "sequenceScores": out.sequences_scores.tolist(),
                          "endsWithEos": [s[-1] in eos_of(models[0]) and len(s) > len(ids) for s in seqs]})
    return cases


def stopped(seq, start, most, eos):
    """Whether a stop string ended the sequence: before max_new_tokens, not on an end-of-text id."""
    return len(seq) - start < most and seq[-1] not in eos


def usable(t):
    return t and "\ufffd" not in t and t.strip() == t and t.isprintable()


def stop_string_cases():
    cases = []
    for name in DECODERS:
        models = [load(name, torch.float64), load(name, torch.float32)]
        tok = AutoTokenizer.from_pretrained(os.path.join(MODELS, name))
        seq2seq = False
        for text in TEXTS[:2]:
            ids = tok(text).input_ids
            greedy = run(models, name, ids, {"num_beams": 1, "do_sample": False, "max_new_tokens": 16})
            seq = greedy.sequences[0].tolist()
            start = 1 if seq2seq else len(ids)
            new = seq[start:]
            texts = [tok.decode(new[:k], skip_special_tokens=True) for k in range(len(new) + 1)]
            whole = texts[-1]
            strings = []
            # Across a boundary: the last character of one id's text and the first of the next one's.
            for k in range(3, len(new) - 1):
                b = len(texts[k])
                if 0 < b < len(whole) and texts[k + 1].startswith(texts[k]) and usable(whole[b - 1:b + 1]):
                    strings.append(("across", whole[b - 1:b + 1]))
                    break
            # The first character of an id whose text is longer: the id runs on past the string.
            for k in range(2, len(new)):
                piece = texts[k + 1][len(texts[k]):] if texts[k + 1].startswith(texts[k]) else ""
                if len(piece) >= 2 and usable(piece[0]) and whole.find(piece[0]) == len(texts[k]):
                    strings.append(("overhang", piece[0]))
                    break
            strings.append(("never", "zzzqqq"))
            for kind, s in strings:
                for beams in (1, 3):
                    options = {"num_beams": beams, "max_new_tokens": 16, "stop_strings": [s]}
                    out = run(models, name, ids, {**options, "do_sample": False}, tok)
                    got = cut(out.sequences[0].tolist(), start, eos_of(models[0]))
                    cases.append({"model": name, "name": f"{kind}_{beams}", "text": text, "inputIds": ids,
                                  "options": options, "sequence": got,
                                  "greedyNewText": whole, "stopped": stopped(got, start, 16, eos_of(models[0]))})
            # Two strings at once: the never-coming one and the first that comes.
            if len(strings) > 1:
                options = {"num_beams": 1, "max_new_tokens": 16, "stop_strings": ["zzzqqq", strings[0][1]]}
                out = run(models, name, ids, {**options, "do_sample": False}, tok)
                cases.append({"model": name, "name": "two_strings", "text": text, "inputIds": ids,
                              "options": options, "sequence": cut(out.sequences[0].tolist(), start,
                                                                  eos_of(models[0])),
                              "greedyNewText": whole, "stopped": True})
                assert cases[-1]["stopped"] == stopped(cases[-1]["sequence"], start, 16, eos_of(models[0]))
    return cases


WARPERS = [
    {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.01},
    {"temperature": 2.0, "top_k": 0, "top_p": 1.0, "min_p": 0.02},
    {"temperature": 3.0, "top_k": 0, "top_p": 1.0, "min_p": 0.1},
    {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.1},
    {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.5},
    {"temperature": 0.7, "top_k": 20, "top_p": 1.0, "min_p": 0.05},
    {"temperature": 1.5, "top_k": 0, "top_p": 0.9, "min_p": 0.2},
    {"temperature": 0.5, "top_k": 50, "top_p": 0.95, "min_p": 0.3},
    {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0},
    {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 1.0},
]


def min_p_cases():
    cases = []
    for name in ["hf-qwen2", "hf-llama"]:
        model = load(name, torch.float64)
        tok = AutoTokenizer.from_pretrained(os.path.join(MODELS, name))
        for text in TEXTS[:2]:
            ids = tok(text).input_ids
            with torch.no_grad():
                logits = model(torch.tensor([ids])).logits[0, -1].clone()
            for w in WARPERS:
                procs = []
                if w["temperature"] != 1.0:
                    procs.append(TemperatureLogitsWarper(w["temperature"]))
                if w["top_k"]:
                    procs.append(TopKLogitsWarper(w["top_k"]))
                if w["top_p"] < 1.0:
                    procs.append(TopPLogitsWarper(w["top_p"]))
                procs.append(MinPLogitsWarper(w["min_p"]))
                scores = LogitsProcessorList(procs)(torch.tensor([ids]), logits[None].clone())[0]
                kept = [i for i, v in enumerate(scores.tolist()) if v != float("-inf")]
                cases.append({"model": name, "text": text, "inputIds": ids, "options": w,
                              "logits": logits.tolist(), "kept": kept})
    return cases


def main():
    out = {
        "source": f"Hugging Face transformers {transformers.__version__} on torch {torch.__version__}, float64 "
                  "(float32 gives the same ids), tests/tools/make_generation_fixtures.py",
        "beams": beam_cases(),
        "stopStrings": stop_string_cases(),
        "minP": min_p_cases(),
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(OUT, {k: len(v) for k, v in out.items() if isinstance(v, list)})


if __name__ == "__main__":
    main()
