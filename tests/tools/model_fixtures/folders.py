"""The checkpoint folders: BERT (F32, F16, BF16), RoBERTa, GPT-2 (one file, two shards)."""
import os

import numpy as np
import torch

from .checkpoints import (DTYPE_SIZE, bf16_to_f32, bert_weights, gpt2_weights, GPT2_BUFFERS, read_safetensors, stored,
                          write_safetensors)
from .checks import check_against_module, check_layer_against_module
from .common import D, DEBIAN_VERSION, INTERMEDIATE, MAX_POSITIONS, NUM_HEADS, NUM_LAYERS, OUT_DIR, SENTENCE, SENTENCE_2
from .models import BertModel, GPT2Model, load
from .reference import run_case, write_json, write_reference
from .tokenizers import bert_tokenize, bpe_tokenize, byte_chars
from .vocabularies import (added_token, bert_tokenizer_json, bert_vocab, bpe_tokenizer_json, bpe_vocab, GPT2_EOT, GPT2_MERGES,
                           GPT2_TEXT, ROBERTA_MERGES, ROBERTA_SPECIALS)


def bert_config(V, dtype):
    return {
        "architectures": ["BertForMaskedLM"],
        "model_type": "bert",
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": D,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": MAX_POSITIONS,
        "num_attention_heads": NUM_HEADS,
        "num_hidden_layers": NUM_LAYERS,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": dtype,
        "type_vocab_size": 2,
        "vocab_size": V,
    }


def summary_config(model_type, V, max_positions):
    return {"modelType": model_type, "numLayers": NUM_LAYERS, "numHeads": NUM_HEADS, "hiddenSize": D,
            "vocabSize": V, "maxPositions": max_positions}


def source_text(dtype_note, check, layer_check):
    return ("PyTorch float64 (Debian python3-torch %s, torch %s), hand-written model with the Hugging Face module "
            "names (not this project's code), weights as read back from the safetensors file%s; layer 0's attention "
            "checked against torch.nn.MultiheadAttention (max diff %.1e) and the whole layer 0 against "
            "torch.nn.TransformerEncoderLayer (max diff %.1e); token ids from the script's own tokenizer"
            % (DEBIAN_VERSION, torch.__version__, dtype_note, check, layer_check))


def finish(folder, model, family, cases, config, special_tokens, dtype_note, files_note):
    x = model.embeddings(*(torch.tensor(v) for v in (cases[0]["inputIds"], cases[0]["tokenTypeIds"], cases[0]["positionIds"]))) \
        if family != "gpt2" else model.wte(torch.tensor(cases[0]["inputIds"])) + model.wpe(torch.tensor(cases[0]["positionIds"]))
    check = check_against_module(model, "gpt2" if family == "gpt2" else "bert", x.detach())
    layer_check = check_layer_against_module(model, "gpt2" if family == "gpt2" else "bert", x.detach())
    write_reference(os.path.join(OUT_DIR, folder, "reference.json"), source_text(dtype_note, check, layer_check), config,
                    special_tokens, cases)
    return {"folder": folder, "cases": cases, "check": check, "layerCheck": layer_check, "note": files_note}


def make_berts():
    vocab = bert_vocab()
    V = len(vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    base, r = bert_weights(11, MAX_POSITIONS, 2, V)
    extras = {
        "pooler.dense.weight": r(D, D), "pooler.dense.bias": r(D),
        "cls.predictions.bias": r(V), "cls.predictions.transform.dense.weight": r(D, D),
        "cls.predictions.transform.LayerNorm.weight": r.ln_weight(),
    }
    position_ids = np.arange(MAX_POSITIONS, dtype=np.int64)[None]
    tokenizer = bert_tokenizer_json(vocab)
    tokenizer_config = {"do_lower_case": True, "tokenizer_class": "BertTokenizer", "model_max_length": MAX_POSITIONS}
    specials = {"cls": ids["[CLS]"], "sep": ids["[SEP]"], "pad": ids["[PAD]"], "unk": ids["[UNK]"], "mask": ids["[MASK]"]}

    # The inputs, tokenized by the script.
    cls_, sep = ids["[CLS]"], ids["[SEP]"]
    enc = lambda text: [ids[p] for p in bert_tokenize(text, ids)]
    a = [cls_] + enc(SENTENCE) + [sep]
    assert len(a) == 17
    first, second = "用毒毒毒蛇", SENTENCE_2
    b = [cls_] + enc(first) + [sep] + enc(second) + [sep]
    b_types = [0] * (len(enc(first)) + 2) + [1] * (len(enc(second)) + 1)
    english = "Hello world, snakes! ☃"
    c = [cls_] + enc(english) + [sep]
    assert [vocab[i] for i in c] == ["[CLS]", "hello", "world", ",", "snake", "##s", "!", "[UNK]", "[SEP]"], [vocab[i] for i in c]
    d = [cls_, ids["the"], ids["snake"], ids["##s"], ids["[MASK]"], ids["毒"], ids["死"], ids["."], sep]
    inputs = [("sentence", SENTENCE, a, [0] * len(a)),
              ("pair", {"text": first, "textPair": second}, b, b_types),
              ("english_unknown", english, c, [0] * len(c)),
              ("input_ids", {"inputIds": d}, d, [0] * len(d))]

    results = []
    variants = [
        # folder, prefix, dtype, padded, old LayerNorm names, tokenizer.json
        ("bert-zh", "bert.", "F32", True, False, True),
        ("bert-zh-vocab", "", "F16", False, True, False),
        ("bert-bf16", "bert.", "BF16", True, False, True),
    ]
    for folder, prefix, dtype, padded, old_names, with_tokenizer_json in variants:
        path = os.path.join(OUT_DIR, folder)
        os.makedirs(path)

        def name(k):
            if old_names:
                k = k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
            return k if k.startswith("cls.") else prefix + k

        tensors = [(name(k), dtype, v) for k, v in base.items()]
        tensors.insert(5, (name("embeddings.position_ids"), "I64", position_ids))
        tensors += [(name(k), dtype, v) for k, v in extras.items()]
        n = write_safetensors(os.path.join(path, "model.safetensors"), tensors, padded)
        weights, dtypes, n_back = read_safetensors(os.path.join(path, "model.safetensors"))
        assert n_back == n and len(weights) == len(tensors)
        for tname, tdtype, array in tensors:  # the reader gives back exactly the stored values
            want = stored(array, tdtype)
            want = bf16_to_f32(want) if tdtype == "BF16" else want
            assert dtypes[tname] == tdtype and np.array_equal(weights[tname], want.astype(weights[tname].dtype)), tname
        if dtype == "BF16":  # the rounding agrees with torch's
            for k, v in base.items():
                assert np.array_equal(weights[name(k)], torch.tensor(v).bfloat16().double().numpy()), k
        if dtype == "F16":
            for k, v in base.items():
                assert np.array_equal(weights[name(k)], torch.tensor(v).half().double().numpy()), k
        assert np.array_equal(weights[name("embeddings.position_ids")], position_ids)

        model = BertModel(V, MAX_POSITIONS, 2, 1e-12)
        renames = [(".LayerNorm.gamma", ".LayerNorm.weight"), (".LayerNorm.beta", ".LayerNorm.bias")]
        skip = [name(k) for k in extras] + [name("embeddings.position_ids")]
        load(model, weights, prefix, renames, skip)
        write_json(os.path.join(path, "config.json"), bert_config(V, {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]))
        with open(os.path.join(path, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in vocab))
        write_json(os.path.join(path, "tokenizer_config.json"), tokenizer_config)
        if with_tokenizer_json:
            write_json(os.path.join(path, "tokenizer.json"), tokenizer)
        cases = [run_case(model, "bert", cname, inp, cids, types, vocab, None) for cname, inp, cids, types in inputs]
        note = "%s, %s header, keys %s%s" % (dtype, "padded" if padded else "unpadded",
                                              "`bert.`-prefixed" if prefix else "without prefix",
                                              ", LayerNorm `.gamma`/`.beta`" if old_names else "")
        results.append(finish(folder, model, "bert", cases, summary_config("bert", V, MAX_POSITIONS), specials,
                              "" if dtype == "F32" else " (%s values)" % dtype, note))
    return results


def make_roberta():
    vocab = bpe_vocab(ROBERTA_MERGES, ROBERTA_SPECIALS, [])
    V = len(vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    pad_id, positions = 1, MAX_POSITIONS + 2
    base, r = bert_weights(23, positions, 1, V)
    extras = {"lm_head.dense.weight": r(D, D), "lm_head.bias": r(V)}
    path = os.path.join(OUT_DIR, "roberta")
    os.makedirs(path)
    tensors = [("roberta." + k, "F32", v) for k, v in base.items()] + [(k, "F32", v) for k, v in extras.items()]
    write_safetensors(os.path.join(path, "model.safetensors"), tensors, padded=True)
    weights, _, _ = read_safetensors(os.path.join(path, "model.safetensors"))
    model = load(BertModel(V, positions, 1, 1e-5), weights, "roberta.", [], list(extras))
    write_json(os.path.join(path, "config.json"), {
        "architectures": ["RobertaForMaskedLM"],
        "model_type": "roberta",
        "attention_probs_dropout_prob": 0.1,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": D,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-5,
        "max_position_embeddings": positions,
        "num_attention_heads": NUM_HEADS,
        "num_hidden_layers": NUM_LAYERS,
        "pad_token_id": pad_id,
        "position_embedding_type": "absolute",
        "torch_dtype": "float32",
        "type_vocab_size": 1,
        "vocab_size": V,
    })
    added = [added_token(ids[t], t, True) for t in ROBERTA_SPECIALS]
    post = {"type": "RobertaProcessing", "sep": ["</s>", ids["</s>"]], "cls": ["<s>", ids["<s>"]],
            "trim_offsets": True, "add_prefix_space": False}
    write_json(os.path.join(path, "tokenizer.json"), bpe_tokenizer_json(vocab, ROBERTA_MERGES, added, post))
    write_json(os.path.join(path, "tokenizer_config.json"), {
        "tokenizer_class": "RobertaTokenizer", "model_max_length": MAX_POSITIONS, "add_prefix_space": False,
        "bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>",
        "pad_token": "<pad>"})
    enc = lambda text: [ids["<s>"]] + [ids[p] for p in bpe_tokenize(text, ROBERTA_MERGES)] + [ids["</s>"]]
    cases = []
    for cname, text in (("sentence", SENTENCE), ("english", "hello venom")):
        cids = enc(text)
        cases.append(run_case(model, "roberta", cname, text, cids, [0] * len(cids), vocab, set(ROBERTA_SPECIALS), pad_id))
    assert cases[1]["tokens"] == ["<s>", "hello", "Ġvenom", "</s>"], cases[1]["tokens"]
    assert cases[0]["tokens"].count("æ¯Ĵ") == 6
    specials = {"cls": ids["<s>"], "sep": ids["</s>"], "pad": ids["<pad>"], "unk": ids["<unk>"]}
    return [finish("roberta", model, "roberta", cases, summary_config("roberta", V, positions), specials, "",
                   "F32, padded header, keys `roberta.`-prefixed")]


def make_gpt2s():
    vocab = bpe_vocab(GPT2_MERGES, [], [GPT2_EOT])
    V = len(vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    eot = ids[GPT2_EOT]
    config = {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "activation_function": "gelu_new",
        "attn_pdrop": 0.1,
        "bos_token_id": eot,
        "embd_pdrop": 0.1,
        "eos_token_id": eot,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-5,
        "n_ctx": MAX_POSITIONS,
        "n_embd": D,
        "n_head": NUM_HEADS,
        "n_inner": None,
        "n_layer": NUM_LAYERS,
        "n_positions": MAX_POSITIONS,
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "torch_dtype": "float32",
        "use_cache": True,
        "vocab_size": V,
    }
    tokenizer = bpe_tokenizer_json(vocab, GPT2_MERGES, [added_token(eot, GPT2_EOT, True)], None)
    tokenizer_config = {"tokenizer_class": "GPT2Tokenizer", "model_max_length": MAX_POSITIONS, "add_prefix_space": False,
                        "bos_token": GPT2_EOT, "eos_token": GPT2_EOT, "unk_token": GPT2_EOT}
    text_ids = [ids[p] for p in bpe_tokenize(GPT2_TEXT, GPT2_MERGES)]
    text_tokens = [vocab[i] for i in text_ids]
    assert "Ġsnake" in text_tokens and "Ġwo" in text_tokens and text_tokens.count("æ¯Ĵ") == 3
    results = []
    for folder, seed in (("gpt2", 31), ("gpt2-sharded", 37)):
        path = os.path.join(OUT_DIR, folder)
        os.makedirs(path)
        base, r = gpt2_weights(seed, V)
        if folder == "gpt2":
            write_safetensors(os.path.join(path, "model.safetensors"), [(k, "F32", v) for k, v in base.items()], padded=False)
            weights, _, _ = read_safetensors(os.path.join(path, "model.safetensors"))
            model = load(GPT2Model(V, MAX_POSITIONS, 1e-5), weights, "", [], GPT2_BUFFERS)
            ids_case = [eot, ids["the"], ids["Ġsnake"], ids["æ¯Ĵ"], ids["Ġwo"], ids["rl"], ids["d"], ids["!"], eot]
            note = "F32, unpadded header, keys without prefix"
        else:
            first = [k for k in base if k.startswith(("wte.", "wpe.", "h.0."))]
            shard1 = [("transformer." + k, "F32", base[k]) for k in first]
            shard2 = [("transformer." + k, "BF16", v) for k, v in base.items() if k not in first]
            shard2.append(("lm_head.weight", "BF16", base["wte.weight"]))
            files = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
            weights, weight_map, total = {}, {}, 0
            for fname, tensors in zip(files, (shard1, shard2)):
                write_safetensors(os.path.join(path, fname), tensors, padded=True)
                w, dt, _ = read_safetensors(os.path.join(path, fname))
                assert not set(w) & set(weights)
                weights.update(w)
                for tname, tdtype, array in tensors:
                    weight_map[tname] = fname
                    total += DTYPE_SIZE[tdtype] * int(np.prod(np.shape(array), dtype=np.int64))
            write_json(os.path.join(path, "model.safetensors.index.json"),
                       {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))})
            model = load(GPT2Model(V, MAX_POSITIONS, 1e-5), weights, "transformer.", [],
                         ["transformer." + k for k in GPT2_BUFFERS] + ["lm_head.weight"])
            # One lone lead byte (the first byte of 用) with no continuation: shown as <0xE7>.
            ids_case = [ids["the"], ids[byte_chars("用")[0]], ids["Ġsnake"], ids["æ¯Ĵ"], ids[byte_chars("蛇")[:2]], ids[byte_chars("蛇")[2]], eot]
            note = "two shards: F32 (embeddings, h.0) and BF16 (h.1, ln_f, lm_head), padded headers, keys `transformer.`-prefixed"
        write_json(os.path.join(path, "config.json"), config)
        write_json(os.path.join(path, "tokenizer.json"), tokenizer)
        write_json(os.path.join(path, "tokenizer_config.json"), tokenizer_config)
        cases = [run_case(model, "gpt2", "mixed_text", GPT2_TEXT, text_ids, [0] * len(text_ids), vocab, {GPT2_EOT}),
                 run_case(model, "gpt2", "input_ids", {"inputIds": ids_case}, ids_case, [0] * len(ids_case), vocab, {GPT2_EOT})]
        results.append(finish(folder, model, "gpt2", cases, summary_config("gpt2", V, MAX_POSITIONS), {"bos": eot, "eos": eot},
                              " (BF16 values in the second shard)" if folder != "gpt2" else "", note))
    return results
