#!/usr/bin/env python3
"""Writes tests/fixtures/models/hf-<name>/: tiny checkpoints made by Hugging Face
transformers itself (its own model classes, save_pretrained, its own fast
tokenizers trained by the `tokenizers` library), each with a reference.json
of the hidden states and attention weights transformers computes, for the
architectures of BERT's exact shape that run as RoBERTa: xlm-roberta,
camembert and roberta (a byte-level BPE tokenizer), with the inputs where
RoBERTa differs from BERT: a text pair (transformers feeds token type 0 to
both texts: these tokenizers return no type ids) and ids with <pad> inside
(create_position_ids_from_input_ids: a pad token's position is padding_idx
and does not advance the count).

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-
transformers 5.x, python3-torch 2.x, python3-tokenizers), from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_hf_fixtures.py"

References in float64 with attn_implementation="eager" (the default attention
returns no weights); the parameters are redrawn from a seeded generator, since
transformers' own initialisation makes every head nearly uniform; the weights
are saved as float32 and the reference runs on exactly those values.
"""
import json
import os
import re
import shutil
import sys


import numpy as np
import torch
import transformers
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_fixtures.reference import write_reference  # noqa: E402 (the same reference.json format)
from model_fixtures.tokenizers import readable_tokens  # noqa: E402

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
D, HEADS, INTERMEDIATE, LAYERS, MAX_POSITIONS = 32, 4, 64, 2, 40
TOLERANCE = {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5}
SENTENCE = "用毒毒毒蛇，毒蛇会不会被毒毒死"
PAIR = "蛇会被毒死吗？"
ENGLISH = "Will a venomous snake be poisoned by venom if we poison it with venom?"
# What the tokenizers learn their pieces from: the two languages of the page.
CORPUS = [SENTENCE, PAIR, ENGLISH, "毒蛇会被毒死", "the snake poisons the snake", "用毒 毒蛇"] * 4


def unigram_tokenizer(specials):
    """A SentencePiece-style Unigram tokenizer.json, laid out as XLM-R's and CamemBERT's converters lay them out.

    Its pieces are written here, not trained: tokenizers' UnigramTrainer gives other pieces from run to
    run. Every character of the corpus (score -3) and a few words (score -4, so a word beats its
    characters), after the specials; <mask> last, as XLM-R has it."""
    chars = sorted({ch for text in CORPUS for ch in text.replace(" ", "")})
    words = ["▁毒蛇", "毒蛇", "毒死", "▁snake", "▁venom", "▁the", "▁poison", "会不会"]
    vocab = [(t, 0.0) for t in specials if t != "<mask>"] + [("▁", -2.0)]
    vocab += [(c, -3.0) for c in chars] + [(w, -4.0) for w in words] + [("<mask>", 0.0)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=[t for t, _ in vocab].index("<unk>"), byte_fallback=False))
    # (The Hub's XLM-R and CamemBERT files have a Precompiled normalizer, sentencepiece's charsmap, where
    # transformers' converter writes Nmt + NFKC without one; @huggingface/tokenizers 0.2 has Precompiled
    # and NFKC but no Nmt, which only maps control characters: NFKC then the spaces.)
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.add_special_tokens(specials)
    return tok


def bpe_tokenizer(specials):
    """A byte-level BPE tokenizer.json, as RoBERTa's."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=300, special_tokens=specials,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def roberta_processing(tok, cls, sep):
    tok.post_processor = processors.RobertaProcessing((sep, tok.token_to_id(sep)), (cls, tok.token_to_id(cls)),
                                                      trim_offsets=False, add_prefix_space=False)


def redraw(model, seed):
    """Parameters of a seeded normal: heads that look somewhere, LayerNorms that are not the identity."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            noise = torch.randn(p.shape, generator=g, dtype=torch.float64)
            if name.endswith("LayerNorm.weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith(".bias"):
                p.copy_(0.2 * noise)
            elif "embeddings" in name:
                p.copy_(0.7 * noise)
            else:  # nn.Linear [out, in]: 1.6/√in makes the scores peaky
                p.copy_(1.6 / np.sqrt(p.shape[-1]) * noise)


def run_case(model, tokenizer, name, inp, ids, byte_level):
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    hidden = torch.stack(out.hidden_states)[:, 0].numpy()
    attention = torch.stack(out.attentions)[:, 0].numpy()
    L = len(ids)
    assert hidden.shape == (LAYERS + 1, L, D) and attention.shape == (LAYERS, HEADS, L, L)
    assert np.all(np.isfinite(hidden)) and np.allclose(attention.sum(-1), 1.0, atol=1e-12)
    peaks = (attention.max(-1) * L).max(-1)
    assert peaks.min() > 1.25, (name, peaks)  # every head has a row that is not uniform
    pad = model.config.pad_token_id
    positions = transformers.models.roberta.modeling_roberta.RobertaEmbeddings.create_position_ids_from_input_ids(
        torch.tensor([ids]), pad)[0].tolist()
    tokens = tokenizer.convert_ids_to_tokens(ids)
    # Byte-level pieces as the engine shows them (README.md of the folders: "readable").
    readable = readable_tokens(tokens, set(tokenizer.all_special_tokens)) if byte_level else tokens
    return {"name": name, "input": inp, "inputIds": ids, "tokenTypeIds": [0] * L, "positionIds": positions,
            "tokens": tokens, "readable": readable, "lastHiddenState": out.last_hidden_state[0].numpy(),
            "hiddenStates": hidden, "attention": attention}


def make(folder, config_class, model_class, tokenizer, tokenizer_class, seed, byte_level=False, bin_copies=False):
    path = os.path.join(OUT_DIR, folder)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    specials = dict(bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>", unk_token="<unk>",
                    pad_token="<pad>", mask_token="<mask>")
    fast = tokenizer_class(tokenizer_object=tokenizer, **specials)
    fast.save_pretrained(path)
    for extra in ("special_tokens_map.json", "chat_template.jinja"):
        if os.path.exists(os.path.join(path, extra)):
            os.remove(os.path.join(path, extra))
    config = config_class(vocab_size=len(fast), hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                          intermediate_size=INTERMEDIATE, max_position_embeddings=MAX_POSITIONS, type_vocab_size=1,
                          pad_token_id=fast.pad_token_id, bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id,
                          hidden_act="gelu", attn_implementation="eager")
    model = model_class(config, add_pooling_layer=False).to(torch.float64).eval()
    redraw(model, seed)
    # The file holds float32; the reference runs in float64 on exactly those values.
    model.to(torch.float32).save_pretrained(path, safe_serialization=True)
    model.to(torch.float64)
    pad = fast.pad_token_id
    sentence = fast(SENTENCE)["input_ids"]
    pair = fast(SENTENCE, PAIR)
    assert "token_type_ids" not in pair  # RoBERTa's tokenizers give none: the model takes zeros
    padded = sentence[:4] + [pad, pad] + sentence[4:8]  # <pad> inside: positions stop at padding_idx
    cases = [run_case(model, fast, "sentence", SENTENCE, sentence, byte_level),
             run_case(model, fast, "pair", {"text": SENTENCE, "textPair": PAIR}, pair["input_ids"], byte_level),
             run_case(model, fast, "pad_inside", {"inputIds": padded}, padded, byte_level)]
    assert cases[2]["positionIds"][4:6] == [pad, pad], cases[2]["positionIds"]
    summary = {"modelType": config.model_type, "numLayers": LAYERS, "numHeads": HEADS, "hiddenSize": D,
               "vocabSize": len(fast), "maxPositions": MAX_POSITIONS, "maxLength": MAX_POSITIONS - pad - 1}
    source = ("Hugging Face transformers %s (%s, eager attention) on torch %s, float64; tokenizer %s trained by "
              "tokenizers; parameters redrawn from torch.Generator seed %d, saved as float32 by save_pretrained"
              % (transformers.__version__, model_class.__name__, torch.__version__, tokenizer_class.__name__, seed))
    write_reference(os.path.join(path, "reference.json"), source, summary,
                    {"cls": fast.cls_token_id, "sep": fast.sep_token_id, "pad": pad, "unk": fast.unk_token_id,
                     "mask": fast.mask_token_id}, cases)
    if bin_copies:
        write_bin_copies(path, model)
    print(folder, "cases", [len(c["inputIds"]) for c in cases], "files", sorted(os.listdir(path)))
    files = ", ".join("`%s` (%d B)" % (f, os.path.getsize(os.path.join(path, f))) for f in sorted(os.listdir(path)))
    lines = "; ".join("`%s` (L=%d) %s" % (c["name"], len(c["inputIds"]), json.dumps(c["input"], ensure_ascii=False))
                      for c in cases)
    return "* `%s/` (model_type `%s`, %s, seed %d): %s. Cases: %s." % (folder, config.model_type,
                                                                      tokenizer_class.__name__, seed, files, lines)


def write_bin_copies(path, model):
    """<path>-bin/ and <path>-bin-sharded/: the same checkpoint as pytorch_model.bin, written by torch.save
    (one file, and two shards with pytorch_model.bin.index.json), and the same reference."""
    state = {k: v.to(torch.float32).contiguous() for k, v in model.state_dict().items()}
    for suffix, shards in (("-bin", 1), ("-bin-sharded", 2)):
        out = path + suffix
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "reference.json"):
            shutil.copy(os.path.join(path, name), out)
        names = list(state)
        if shards == 1:
            torch.save(state, os.path.join(out, "pytorch_model.bin"))
            continue
        weight_map = {}
        for k in range(shards):
            part = names[k * len(names) // shards:(k + 1) * len(names) // shards]
            file = "pytorch_model-%05d-of-%05d.bin" % (k + 1, shards)
            torch.save({n: state[n] for n in part}, os.path.join(out, file))
            weight_map.update({n: file for n in part})
        with open(os.path.join(out, "pytorch_model.bin.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": sum(t.numel() * 4 for t in state.values())},
                       "weight_map": weight_map}, f, indent=2)
            f.write("\n")


# ---- The hand-written folders, referenced by transformers ----

# Folders whose files tests/tools/make_model_fixtures.py writes by hand: layouts save_pretrained never
# writes (an unpadded safetensors header, an I64 position_ids buffer, LayerNorm gamma/beta names, keys
# without a prefix, F16 and BF16 values, shards of two dtypes with an lm_head copy, task heads); their
# reference.json is made here, by transformers loading those very files.
HANDWRITTEN = ("bert-zh", "bert-zh-vocab", "bert-bf16", "roberta", "gpt2", "gpt2-sharded")


def rereference(folder):
    """reference.json of a hand-written folder from transformers: AutoTokenizer and AutoModel.from_pretrained of
    the folder in float64 with eager attention, on the cases of the folder's reference; the hand-written one it
    replaces must agree (its worst difference is written into `source`)."""
    path = os.path.join(OUT_DIR, folder)
    old = json.load(open(os.path.join(path, "reference.json"), encoding="utf-8"))
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    except TypeError:
        # transformers 5.12's RobertaTokenizer rebuilds the RobertaProcessing of tokenizer.json with arguments
        # tokenizers 0.23 no longer takes: transformers' generic fast tokenizer over the same file instead.
        config = json.load(open(os.path.join(path, "tokenizer_config.json"), encoding="utf-8"))
        specials = {k: v for k, v in config.items() if k.endswith("_token")}
        tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.join(path, "tokenizer.json"), **specials)
    model = transformers.AutoModel.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
    family = old["config"]["modelType"]
    cases, worst = [], 0.0
    for c in old["cases"]:
        inp = c["input"]
        if isinstance(inp, str):
            enc = tokenizer(inp)
        elif "text" in inp:
            enc = tokenizer(inp["text"], inp["textPair"])
        else:
            enc = {"input_ids": inp["inputIds"]}
        ids = list(enc["input_ids"])
        # transformers' tokenizer gives the ids the engine's tokenizer must give.
        assert ids == c["inputIds"], (folder, c["name"], ids, c["inputIds"])
        types = list(enc.get("token_type_ids") or [0] * len(ids))
        if family == "gpt2":
            types = [0] * len(ids)  # GPT-2 has no token types (GPT2Model would embed them with wte)
        kwargs = {"token_type_ids": torch.tensor([types])} if family != "gpt2" else {}
        with torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True, **kwargs)
        if family == "roberta":
            positions = transformers.models.roberta.modeling_roberta.RobertaEmbeddings \
                .create_position_ids_from_input_ids(torch.tensor([ids]), model.config.pad_token_id)[0].tolist()
        else:
            positions = list(range(len(ids)))
        tokens = tokenizer.convert_ids_to_tokens(ids)
        readable = readable_tokens(tokens, set(tokenizer.all_special_tokens)) if family != "bert" else tokens
        case = {"name": c["name"], "input": inp, "inputIds": ids, "tokenTypeIds": types, "positionIds": positions,
                "tokens": tokens, "readable": readable,
                "lastHiddenState": out.last_hidden_state[0].numpy(),
                "hiddenStates": torch.stack(out.hidden_states)[:, 0].numpy(),
                "attention": torch.stack(out.attentions)[:, 0].numpy()}
        assert positions == c["positionIds"] and tokens == c["tokens"] and readable == c["readable"], (folder, c["name"])
        for key in ("lastHiddenState", "hiddenStates", "attention"):
            worst = max(worst, float(np.max(np.abs(np.asarray(case[key]).ravel() - np.asarray(c[key])))))
        cases.append(case)
    assert worst < 1e-5, (folder, worst)
    source = ("Hugging Face transformers %s (%s.from_pretrained of this folder, eager attention) on torch %s, float64, "
              "the ids from AutoTokenizer (%s); the files are hand-written by tests/tools/make_model_fixtures.py, whose "
              "own float64 reference agreed to %.1e" % (transformers.__version__, type(model).__name__, torch.__version__,
                                                        type(tokenizer).__name__, worst))
    write_reference(os.path.join(path, "reference.json"), source, old["config"], old["specialTokens"], cases)
    print(folder, "re-referenced by transformers; the hand-written reference agreed to %.1e" % worst)
    return "* `%s/` (%s, %s): re-referenced; the hand-written reference agreed to %.1e." % (
        folder, type(model).__name__, type(tokenizer).__name__, worst)


# ---- Hostile pickles (tests/fixtures/pickles): each must be refused, and nothing in it run ----

def pickle_ops(*parts):
    return b"".join(p if isinstance(p, bytes) else p.encode("utf-8") for p in parts)


def u(text):
    """BINUNICODE."""
    data = text.encode("utf-8")
    return b"X" + len(data).to_bytes(4, "little") + data


def state_dict_pickle(tensors):
    """A state_dict's pickle as torch.save writes one: {name: (storage key, numel, offset, shape, stride)}."""
    out = [b"\x80\x02", b"ccollections\nOrderedDict\n)R("]
    for name, (key, numel, offset, shape, stride) in tensors.items():
        ints = lambda xs: b"(" + b"".join(b"K" + bytes([x]) for x in xs) + b"t"
        out += [u(name), b"ctorch._utils\n_rebuild_tensor_v2\n(", b"(", u("storage"), b"ctorch\nFloatStorage\n",
                u(key), u("cpu"), b"K" + bytes([numel]), b"tQ", b"K" + bytes([offset]), ints(shape), ints(stride),
                b"\x89ccollections\nOrderedDict\n)RtR"]
    return b"".join(out) + b"u."


def zip_of(members, folder="archive/"):
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for name, data in {**members, "version": b"3\n", "byteorder": b"little"}.items():
            z.writestr(zipfile.ZipInfo(name if name.startswith(("../", "/")) else folder + name), data)
    return buffer.getvalue()


def make_hostile():
    out = os.path.join(OUT_DIR, "..", "pickles")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    good = {"w": ("0", 4, 0, [2, 2], [2, 1])}
    record = np.arange(4, dtype="<f4").tobytes()
    cases = {
        # A state_dict whose one value calls os.system (posix.system, as Python pickles it on Linux).
        "os-system": zip_of({"data.pkl": pickle_ops(b"\x80\x02cposix\nsystem\n", u("echo pwned > /tmp/pwned"),
                                                    b"\x85R."), "data/0": record}),
        "builtins-eval": zip_of({"data.pkl": pickle_ops(b"\x80\x02cbuiltins\neval\n", u("__import__('os')"), b"\x85R."),
                                 "data/0": record}),
        # 100,000 MARKs: a recursion bomb for an unpickler that nests.
        "recursion-bomb": zip_of({"data.pkl": b"\x80\x02" + b"(" * 100000 + b".", "data/0": record}),
        # A tensor of 4 floats whose storage claims 40.
        "storage-past-end": zip_of({"data.pkl": state_dict_pickle({"w": ("0", 40, 0, [2, 2], [2, 1])}),
                                    "data/0": record}),
        # A tensor that reaches past its storage (offset 2 of 4, 4 elements).
        "tensor-past-storage": zip_of({"data.pkl": state_dict_pickle({"w": ("0", 4, 2, [2, 2], [2, 1])}),
                                       "data/0": record}),
        "member-dotdot": zip_of({"data.pkl": state_dict_pickle(good), "data/0": record, "../x": b"x"}),
        "non-contiguous": zip_of({"data.pkl": state_dict_pickle({"w": ("0", 4, 0, [2, 2], [1, 2])}), "data/0": record}),
        # torch.save before torch 1.6: a bare pickle stream.
        "legacy": b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.",
        # The same crafted writer's valid file: what the others break.
        "good": zip_of({"data.pkl": state_dict_pickle(good), "data/0": record}),
        # Two tensors on one storage, as tied weights are saved (the second a [4] view of the [2, 2]).
        "tied": zip_of({"data.pkl": state_dict_pickle({"w": ("0", 4, 0, [2, 2], [2, 1]), "tied": ("0", 4, 0, [4], [1])}),
                        "data/0": record}),
    }
    for name, data in cases.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    # The crafted writer agrees with torch: torch.load reads the good one (weights_only, so nothing runs).
    assert torch.load(os.path.join(out, "good.bin"), weights_only=True)["w"].tolist() == [[0, 1], [2, 3]]
    tied = torch.load(os.path.join(out, "tied.bin"), weights_only=True)
    assert tied["tied"].tolist() == [0, 1, 2, 3] and tied["w"].untyped_storage().data_ptr() == tied["tied"].untyped_storage().data_ptr()
    print("pickles", sorted(cases))


README = """# Checkpoints made by transformers itself

Written by [tests/tools/make_hf_fixtures.py](../../tools/make_hf_fixtures.py) (do not edit): each
folder was saved by Hugging Face transformers %s's own `save_pretrained` (model and tokenizer), and
its `reference.json` (the format of [README.md](README.md)) holds what transformers computes for
it, in float64 with eager attention, on torch %s. `config.maxLength` is the longest input the
position table allows (RoBERTa's first `pad_token_id + 1` positions are taken). The cases are the
inputs where RoBERTa's design differs from BERT's: a text `pair` (its tokenizers return no token
type ids; the model takes zeros) and `pad_inside`, ids with `<pad>` in the middle (a pad token's
position is `pad_token_id` and does not advance the count, `create_position_ids_from_input_ids`).
`hf-xlm-roberta-bin/` and `hf-xlm-roberta-bin-sharded/` are `hf-xlm-roberta/` with its weights
written by `torch.save` (one `pytorch_model.bin`, and two shards with `pytorch_model.bin.index.json`)
instead of safetensors, and the same reference. [../pickles](../pickles) holds hostile
`pytorch_model.bin` archives (a global that calls `os.system` or `builtins.eval`, 100,000 nested
marks, a storage smaller than it claims, a tensor past its storage, a zip member `../x`, strides of
a transposed tensor, the legacy non-zip format), `good.bin`, the same writer's valid archive, and
`tied.bin`, two tensors on one storage (tied weights), both of which `torch.load(weights_only=True)`
reads.

%s

The folders whose files are written by hand ([tests/tools/make_model_fixtures.py](../../tools/make_model_fixtures.py):
layouts `save_pretrained` never writes) have their `reference.json` from transformers too: each
folder loaded by `AutoModel.from_pretrained` and `AutoTokenizer.from_pretrained` (which must give
the committed ids), run in float64 with eager attention; the script's own hand-written float64
reference, which this replaces, agreed within the worst difference given:

%s
"""


def main():
    torch.manual_seed(0)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    xlmr = unigram_tokenizer(specials)
    roberta_processing(xlmr, "<s>", "</s>")
    rows = []
    rows.append(make("hf-xlm-roberta", transformers.XLMRobertaConfig, transformers.XLMRobertaModel, xlmr,
         transformers.XLMRobertaTokenizerFast, 21, bin_copies=True))
    camembert = unigram_tokenizer(specials)
    roberta_processing(camembert, "<s>", "</s>")
    rows.append(make("hf-camembert", transformers.CamembertConfig, transformers.CamembertModel, camembert,
         transformers.CamembertTokenizerFast, 22))
    bpe = bpe_tokenizer(specials)
    # RobertaProcessing's own form, as a template (transformers 5.12's RobertaTokenizer rebuilds a
    # RobertaProcessing it is given with arguments tokenizers 0.23 no longer takes).
    bpe.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", bpe.token_to_id("<s>")), ("</s>", bpe.token_to_id("</s>"))])
    rows.append(make("hf-roberta", transformers.RobertaConfig, transformers.RobertaModel, bpe,
                     transformers.RobertaTokenizerFast, 23, byte_level=True))
    make_hostile()
    handwritten = [rereference(folder) for folder in HANDWRITTEN]
    # The other scripts' sections (make_marian_fixtures.py's, make_decoder_fixtures.py's: each between its
    # <!-- BEGIN script --> and <!-- END script --> markers) are kept as they are, in their order.
    path = os.path.join(OUT_DIR, "TRANSFORMERS.md")
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    kept = [m.group(0) for m in re.finditer(r"<!-- BEGIN (\S+) -->.*?<!-- END \1 -->", old, flags=re.S)]
    with open(path, "w", encoding="utf-8") as f:
        f.write(README % (transformers.__version__, torch.__version__, "\n".join(rows), "\n".join(handwritten)))
        for block in kept:
            f.write("\n" + block + "\n")


if __name__ == "__main__":
    main()
