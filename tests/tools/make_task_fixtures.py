#!/usr/bin/env python3
"""Writes tests/fixtures/tasks/: tiny checkpoints with task heads, made by Hugging Face transformers itself
(BertForSequenceClassification, BertForTokenClassification, BertForQuestionAnswering,
RobertaForSequenceClassification, and a BertModel laid out as a sentence-transformers folder), each with an
expected.json of what transformers computes: the head's logits (float64, eager attention) and what
transformers' own pipeline() returns for the same inputs (text-classification with top_k=None,
token-classification with aggregation_strategy="none", fill-mask on hf-bert-mlm). transformers 5 has no
question-answering pipeline: its answers are transformers 4's QuestionAnsweringPipeline's choice written out
here (answer_span, below) over the start and end logits BertForQuestionAnswering computes.

Debian sid has no python3-sentence-transformers: the embedding folder's reference is transformers' BertModel
with sentence-transformers' Pooling (mean of the token rows, or the [CLS] row) and Normalize (x / ‖x‖₂)
written out here by hand, as sentence_transformers/models/Pooling.py and Normalize.py compute them.

Runs in the chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_task_fixtures.py"

The tokenizers are the committed ones of tests/fixtures/models/hf-bert-mlm (WordPiece) and hf-roberta
(byte-level BPE); parameters are redrawn from a seeded generator (make_hf_fixtures.redraw), saved as float32,
and the references run in float64 on exactly those values.
"""
import json
import os
import shutil
import sys

import numpy as np
import torch
import transformers
from transformers import AutoTokenizer, pipeline

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hf_fixtures import redraw  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "fixtures", "models")
OUT_DIR = os.path.join(HERE, "..", "fixtures", "tasks")
SIZES = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
             max_position_embeddings=64, hidden_act="gelu", attn_implementation="eager")
TEXTS = ["用毒毒毒蛇，毒蛇会不会被毒毒死", "We poison the snake.", "will a venomous snake be poisoned?"]
QUESTIONS = [{"question": "will the snake be poisoned?", "context": "we poison the snake with venom, a venomous snake."},
             {"question": "毒蛇会被毒死吗？", "context": "用毒毒毒蛇，毒蛇会不会被毒毒死"}]
SENTIMENT = {0: "NEGATIVE", 1: "POSITIVE", 2: "NEUTRAL"}
ENTITIES = {0: "O", 1: "B-ANIMAL", 2: "I-ANIMAL", 3: "B-POISON", 4: "I-POISON"}


def source(cls, seed):
    return ("Hugging Face transformers %s (%s, eager attention) on torch %s, float64; parameters redrawn from "
            "torch.Generator seed %d, saved as float32 by save_pretrained"
            % (transformers.__version__, cls.__name__, torch.__version__, seed))


def plain(value):
    """Pipeline results as JSON: numpy and torch numbers as floats."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def tokenizer_of(folder):
    """The folder's tokenizer. hf-roberta's as PreTrainedTokenizerFast over its tokenizer.json: this chroot's
    RobertaTokenizer rebuilds the post-processor with a keyword its tokenizers no longer takes."""
    path = os.path.join(MODELS, folder)
    if folder != "hf-roberta":
        return AutoTokenizer.from_pretrained(path)
    return transformers.PreTrainedTokenizerFast(
        tokenizer_file=os.path.join(path, "tokenizer.json"), bos_token="<s>", eos_token="</s>", sep_token="</s>",
        cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")


def make(folder, tokenizer_folder, model_class, seed, **config_fields):
    path = os.path.join(OUT_DIR, folder)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    tok = tokenizer_of(tokenizer_folder)
    tok.save_pretrained(path)
    for extra in ("special_tokens_map.json", "chat_template.jinja"):
        if os.path.exists(os.path.join(path, extra)):
            os.remove(os.path.join(path, extra))
    config_class = model_class.config_class
    config = config_class(vocab_size=len(tok), pad_token_id=tok.pad_token_id, **SIZES, **config_fields)
    model = model_class(config).to(torch.float64).eval()
    redraw(model, seed)
    model.to(torch.float32).save_pretrained(path, safe_serialization=True)
    model.to(torch.float64)
    return path, tok, model


def write(path, body):
    with open(os.path.join(path, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(body, f, ensure_ascii=False, indent=1)
        f.write("\n")


def logits_of(model, tok, inp):
    enc = tok(**inp, return_tensors="pt") if isinstance(inp, dict) else tok(inp, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    return enc["input_ids"][0].tolist(), out


def sequence_classification(folder, tokenizer_folder, model_class, seed):
    path, tok, model = make(folder, tokenizer_folder, model_class, seed, id2label=SENTIMENT,
                            label2id={v: k for k, v in SENTIMENT.items()})
    classify = pipeline("text-classification", model=model, tokenizer=tok, top_k=None)
    cases = []
    for text in TEXTS:
        ids, out = logits_of(model, tok, text)
        cases.append({"input": text, "inputIds": ids, "logits": out.logits[0].tolist(),
                      "pipeline": plain(classify(text))})
    write(path, {"source": source(model_class, seed), "cases": cases})


def token_classification(seed):
    cls = transformers.BertForTokenClassification
    path, tok, model = make("bert-token-classification", "hf-bert-mlm", cls, seed, id2label=ENTITIES,
                            label2id={v: k for k, v in ENTITIES.items()})
    tag = pipeline("token-classification", model=model, tokenizer=tok, aggregation_strategy="none")
    cases = []
    for text in TEXTS:
        ids, out = logits_of(model, tok, text)
        cases.append({"input": text, "inputIds": ids, "logits": out.logits[0].tolist(), "pipeline": plain(tag(text))})
    write(path, {"source": source(cls, seed), "cases": cases})


def answer_span(enc, start_logits, end_logits, context, max_answer_len=15):
    """transformers 4's QuestionAnsweringPipeline (one span, top_k 1, handle_impossible_answer False): a softmax of
    the start and of the end logits over the context's tokens and [CLS] (every other token -10000), [CLS] then
    zeroed; the best start·end product with start ≤ end < start + max_answer_len over context tokens."""
    context_tokens = np.array([s == 1 for s in enc.sequence_ids(0)])
    keep = context_tokens.copy()
    keep[0] = True  # [CLS] stays in the softmax
    def probabilities(x):
        x = np.where(keep, x, -10000.0)
        e = np.exp(x - x.max())
        p = e / e.sum()
        p[0] = 0.0
        return p
    start, end = probabilities(np.array(start_logits)), probabilities(np.array(end_logits))
    outer = np.tril(np.triu(np.outer(start, end)), max_answer_len - 1)
    outer = outer * np.outer(context_tokens, context_tokens)
    s, e = np.unravel_index(np.argmax(outer), outer.shape)
    offsets = enc["offset_mapping"][0].tolist()
    begin, finish = offsets[s][0], offsets[e][1]
    return {"score": float(outer[s, e]), "start": begin, "end": finish, "answer": context[begin:finish],
            "tokenSpan": [int(s), int(e)]}


def question_answering(seed):
    cls = transformers.BertForQuestionAnswering
    path, tok, model = make("bert-question-answering", "hf-bert-mlm", cls, seed)
    cases = []
    for q in QUESTIONS:
        enc = tok(q["question"], q["context"], return_tensors="pt", return_offsets_mapping=True)
        with torch.no_grad():
            out = model(input_ids=enc["input_ids"], token_type_ids=enc["token_type_ids"])
        answer = lambda **kw: answer_span(enc, out.start_logits[0].tolist(), out.end_logits[0].tolist(), q["context"])
        cases.append({"input": q, "inputIds": enc["input_ids"][0].tolist(),
                      "tokenTypeIds": enc["token_type_ids"][0].tolist(),
                      "startLogits": out.start_logits[0].tolist(), "endLogits": out.end_logits[0].tolist(),
                      "pipeline": plain(answer(question=q["question"], context=q["context"]))})
    write(path, {"source": source(cls, seed), "cases": cases})


def sentence_embedding(seed):
    cls = transformers.BertModel
    path, tok, model = make("bert-sentence-embedding", "hf-bert-mlm", cls, seed)
    # sentence-transformers' folder: the Transformer at the root, then Pooling (mean) and Normalize.
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
               {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
    with open(os.path.join(path, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
    os.makedirs(os.path.join(path, "1_Pooling"))
    with open(os.path.join(path, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": SIZES["hidden_size"], "pooling_mode_cls_token": False,
                   "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False}, f, indent=2)
    cases = []
    for text in TEXTS:
        ids, out = logits_of(model, tok, text)
        h = out.last_hidden_state[0]  # one sequence, no padding: every row counts in the mean
        mean, first = h.mean(0), h[0]
        cases.append({"input": text, "inputIds": ids, "mean": mean.tolist(), "cls": first.tolist(),
                      "meanNormalized": (mean / mean.norm()).tolist(), "clsNormalized": (first / first.norm()).tolist()})
    write(path, {"source": source(cls, seed) + "; pooling (mean, [CLS]) and normalisation by hand, as "
                 "sentence-transformers' Pooling and Normalize (Debian has no sentence-transformers)", "cases": cases})


def fill_mask():
    path = os.path.join(MODELS, "hf-bert-mlm")
    tok = AutoTokenizer.from_pretrained(path)
    model = transformers.BertForMaskedLM.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
    fill = pipeline("fill-mask", model=model, tokenizer=tok, top_k=5)
    texts = ["用毒[MASK]毒蛇，毒蛇会不会被毒毒死", "we poison the [MASK]."]
    cases = [{"input": t, "pipeline": plain(fill(t))} for t in texts]
    write(OUT_DIR, {"source": "Hugging Face transformers %s pipeline('fill-mask', top_k=5) on "
                    "tests/fixtures/models/hf-bert-mlm in float64" % transformers.__version__, "cases": cases})
    os.replace(os.path.join(OUT_DIR, "expected.json"), os.path.join(OUT_DIR, "fill-mask.json"))


if __name__ == "__main__":
    os.makedirs(OUT_DIR, exist_ok=True)
    sequence_classification("bert-sequence-classification", "hf-bert-mlm", transformers.BertForSequenceClassification, 11)
    sequence_classification("roberta-sequence-classification", "hf-roberta",
                            transformers.RobertaForSequenceClassification, 12)
    token_classification(13)
    question_answering(14)
    sentence_embedding(15)
    fill_mask()
    print(sorted(os.listdir(OUT_DIR)))
