#!/usr/bin/env python3
"""Writes tests/fixtures/gguf/: GGUF files of the tiny decoder checkpoints
(tests/fixtures/models/hf-llama, hf-qwen2, hf-qwen3) and the references the
GGUF tests hold the loader to, every one made by independent code:

  dequantize.json   random blocks of each ggml type the loader reads, and
                    their values by gguf-py's own numpy dequantizer
                    (gguf.quants.dequantize), float32 bit patterns;
  {model}-{type}.gguf
                    written by llama.cpp's own converter (convert_hf_to_gguf.py,
                    Debian's llama.cpp-tools / python3-gguf) at f32, f16, bf16
                    and q8_0, then q4_0 and q5_0 by llama-quantize from the f32
                    file;
  llama-k-q4_k_m.gguf, llama-k-q5_k_m.gguf
                    a Llama with rows of 256 (K-quants' blocks), seeded random
                    parameters, converted and quantized by llama-quantize Q4_K_M
                    (Q4_K and Q6_K tensors) and Q5_K_M (Q5_K and Q6_K);
  tokenizer-reference.json
                    by make_gguf_tokenizer_fixtures.py (which also writes the
                    tokenizer fixtures stories260K-q8_0.gguf, llama-bpe-f32.gguf):
                    transformers' AutoTokenizer.from_pretrained(gguf_file=...)
                    of each file on TEXTS;
  {model}-{type}.json
                    transformers' from_pretrained(folder, gguf_file=...)
                    (transformers dequantizes with gguf-py: the float model the
                    file stands for) in float64 with eager attention: logits
                    and attention of the sentence's ids; and llama.cpp's own
                    greedy continuation (llama-server, temperature 0) of a few
                    id prompts, with its top-8 log-probabilities per step.

--references-only rewrites the .json files from the .gguf files there;
--llama-f32-cache-only adds llama.cpp's greedy ids with its KV cache in float32 (llamaCppF32Cache) to the
.json files, and llama.cpp's ids both ways to stories260K-q8_0.json, changing nothing else;
--blocks-only rewrites dequantize.json and quantize.json alone;
--q5-k-only writes llama-k-q5_k_m.gguf and its .json alone (from the same
seeded model as llama-k-q4_k_m.gguf, which it leaves as it is);
--tokenizer-only rewrites dequantize.json, quantize.json and tokenizer-reference.json (not
tokenizer.json: from_pretrained(folder, gguf_file=...) would read that file of
the folder as the tokenizer).

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh made with
EXTRA_PACKAGES="llama.cpp llama.cpp-tools python3-gguf python3-accelerate
python3-protobuf", from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \\
        python3 "$PWD/tests/tools/make_gguf_fixtures.py"

Debian's gguf-py is not in transformers' package map, so its version check
reads 'N/A' and refuses it (gguf is missing from importlib's package map, and
gguf-py defines no __version__): this script sets gguf.__version__ to the
installed distribution's version (gguf-0.19.0.dist-info), nothing else is
patched. transformers 5.12.1's GGUF config table for qwen3 maps no
attention.key_length, so the qwen3 references are made with the file's own
key_length as head_dim (see transformers_reference).
"""
import base64
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "gguf")
MODELS = os.path.join(ROOT, "tests", "fixtures", "models")

import gguf  # noqa: E402  (Debian's python3-gguf: gguf-py of llama.cpp)
from gguf import GGMLQuantizationType as Q  # noqa: E402


def b64(array):
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def halves(rng, n):
    """n finite float16 values, as bytes: random ones over a wide range, with zeros, a subnormal and the largest."""
    values = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-20, 8, n)).astype(np.float16)
    special = np.array([0.0, -0.0, 6e-8, 65504.0, -3.0e-5], dtype=np.float16)
    values[: min(n, len(special))] = special[: min(n, len(special))]
    return values


# Byte offsets of each block's float16 fields (ggml-common.h's block structs).
HALF_FIELDS = {Q.Q4_0: [0], Q.Q5_0: [0], Q.Q8_0: [0], Q.Q4_K: [0, 2], Q.Q5_K: [0, 2], Q.Q6_K: [208]}


def dequantize_fixture():
    rng = np.random.default_rng(39)
    out = {"source": f"gguf-py (Debian python3-gguf) gguf.quants.dequantize on random blocks, numpy {np.__version__}"}
    for qtype in [Q.F32, Q.F16, Q.BF16, Q.Q8_0, Q.Q4_0, Q.Q5_0, Q.Q4_K, Q.Q5_K, Q.Q6_K]:
        block_elements, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
        blocks = 64 if block_elements == 1 else 8
        if qtype == Q.F32:
            raw = rng.standard_normal(blocks).astype(np.float32).view(np.uint8)
        elif qtype == Q.F16:
            raw = halves(rng, blocks).view(np.uint8)
        elif qtype == Q.BF16:
            raw = (rng.standard_normal(blocks).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
        else:
            raw = rng.integers(0, 256, size=(blocks, block_bytes), dtype=np.uint8)
            for at in HALF_FIELDS[qtype]:
                raw[:, at:at + 2] = halves(rng, blocks).view(np.uint8).reshape(blocks, 2)
        raw = raw.reshape(blocks, block_bytes)
        values = gguf.quants.dequantize(raw, qtype).astype(np.float32).reshape(-1)
        assert values.size == blocks * block_elements
        out[qtype.name] = {"elements": int(values.size), "raw": b64(raw), "values": b64(values)}
    with open(os.path.join(OUT, "dequantize.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def quantize_fixture():
    """quantize.json: random float32 rows and gguf-py's own quantizer's Q8_0 and Q4_0 blocks of them
    (gguf.quants.quantize, which computes as ggml's quantize_row_q8_0_ref and quantize_row_q4_0_ref do):
    the reference of the engine's weights 'q8' and 'q4'. Rows of several magnitudes, a block of zeros, a
    block whose largest magnitude is negative, and values on the rounding's ties."""
    rng = np.random.default_rng(40)
    rows = [rng.standard_normal(256) * 10.0 ** e for e in (-3, -1, 0, 2)]
    rows.append(np.zeros(32))
    rows.append(np.array([-4.0] + [1.0] * 31))
    rows.append(np.arange(-16, 16) * (127 / 16.0) / 2)  # multiples of half a Q8_0 step: ties
    floats = np.concatenate(rows).astype(np.float32)
    out = {"source": f"gguf-py (Debian python3-gguf) gguf.quants.quantize, numpy {np.__version__}",
           "floats": b64(floats)}
    for qtype in [Q.Q8_0, Q.Q4_0]:
        out[qtype.name] = b64(gguf.quants.quantize(floats.reshape(1, -1), qtype).reshape(-1))
    with open(os.path.join(OUT, "quantize.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


CONVERTER = "/usr/share/doc/llama.cpp-tools/scripts/convert_hf_to_gguf.py"
# The tiny fixtures' vocabularies were trained here, so the converter's table of known tokenizers (a hash
# of how each tokenizes its test text) cannot recognize them; told which pre-tokenizer their tokenizer.json
# declares (the Qwen2 regex, and tokenizer.json says so: checked below), it writes them as it writes Qwen's.
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
               r"\s*[\r\n]+|\s+(?!\S)|\s+")
CONVERT = """
import runpy, sys
sys.argv = sys.argv[1:]
pre = sys.argv.pop()
sys.path.insert(1, '/usr/share/llama.cpp/llama.cpp-tools')
from conversion import base
known = base.TextModel.get_vocab_base_pre
def get_vocab_base_pre(self, tokenizer):
    try:
        return known(self, tokenizer)
    except NotImplementedError:
        if pre == 'none':
            raise
        return pre
base.TextModel.get_vocab_base_pre = get_vocab_base_pre
runpy.run_path(sys.argv[0], run_name='__main__')
"""
MODELS_READ = ["llama", "qwen2", "qwen3"]
TYPES = ["f32", "f16", "bf16", "q8_0"]  # the converter's own outtypes
QUANTIZED = ["q4_0", "q5_0"]  # llama-quantize's, from the f32 file (K-quants need rows of 256: not these shapes)


def convert(model):
    folder = os.path.join(MODELS, f"hf-{model}")
    with open(os.path.join(folder, "tokenizer.json")) as f:
        pre = json.load(f)["pre_tokenizer"]
    regexes = [p.get("pattern", {}).get("Regex") for p in pre.get("pretokenizers", [])] if pre else []
    hint = "qwen2" if QWEN2_REGEX in regexes else "none"
    files = []
    for outtype in TYPES:
        out = os.path.join(OUT, f"{model}-{outtype}.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, CONVERTER, folder, "--outtype", outtype, "--outfile", out, hint],
                       check=True, capture_output=True)
        files.append(out)
    for qtype in QUANTIZED:
        out = os.path.join(OUT, f"{model}-{qtype}.gguf")
        subprocess.run(["llama-quantize", os.path.join(OUT, f"{model}-f32.gguf"), out, qtype.upper(), "1"],
                       check=True, capture_output=True)
        files.append(out)
    return files


def transformers_reference(model, file, input_ids):
    """transformers' own reading of the GGUF file: its dequantized float model in float64, eager attention."""
    import importlib.metadata
    # Debian's gguf-py is missing from importlib's package→distribution map, so transformers falls back to
    # gguf.__version__, which gguf-py does not define, reads 'N/A' and refuses the package: given here the
    # version of the installed distribution (gguf-0.19.0.dist-info), transformers' check passes as it would
    # with a pip install. Nothing else of transformers or gguf-py is changed.
    gguf.__version__ = importlib.metadata.version("gguf")
    import torch
    import transformers
    from transformers import AutoModelForCausalLM
    transformers.logging.set_verbosity_error()
    from transformers import AutoConfig
    config = AutoConfig.from_pretrained(OUT, gguf_file=os.path.basename(file))
    fixed = ""
    if model == "qwen3":
        # transformers' GGUF table for qwen3 (integrations/ggml.py) maps no attention.key_length (its qwen3_moe
        # does), so the config takes Qwen3's default head_dim, 128 (right for every released Qwen3, not for
        # these tiny ones): the file's own key_length, read with gguf-py, is given instead.
        field = gguf.GGUFReader(file).get_field("qwen3.attention.key_length")
        config.head_dim = int(field.contents())
        fixed = f"; head_dim {config.head_dim} from qwen3.attention.key_length (transformers' table omits it)"
    net = AutoModelForCausalLM.from_pretrained(OUT, gguf_file=os.path.basename(file), config=config,
                                               dtype=torch.float64, attn_implementation="eager")
    net.eval()
    with torch.no_grad():
        out = net(torch.tensor([input_ids]), output_attentions=True)
    logits = out.logits[0].numpy()
    attention = np.stack([a[0].numpy() for a in out.attentions])  # [layers, heads, L, L]
    return {
        "transformers": f"transformers {transformers.__version__} from_pretrained(gguf_file=...) on torch "
                        f"{torch.__version__}, float64, eager attention; gguf-py {gguf.__version__}{fixed}",
        "logits": [float(f"{v:.9g}") for v in logits.reshape(-1)],
        "attention": [float(f"{v:.7g}") for v in attention.reshape(-1)],
        "attentionShape": list(attention.shape),
    }


def llama_cpp_greedy(file, prompts, new_tokens, server_args=()):
    """llama.cpp's own greedy continuation of each id prompt: llama-server, temperature 0, one thread; it stops
    at the end-of-sequence token as generate() does (ignore_eos would bias that token away instead).
    `server_args`: more of llama-server's options (F32_CACHE)."""
    import socket
    import time
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(["llama-server", "-m", file, "--port", str(port), "-t", "1", "-c", "64", "-np", "1",
                               "--no-warmup", *server_args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                with urllib.request.urlopen(url + "/health") as r:
                    if r.status == 200:
                        break
            except Exception:
                time.sleep(0.1)
        out = []
        for prompt in prompts:
            body = json.dumps({"prompt": prompt, "n_predict": new_tokens, "temperature": 0, "cache_prompt": False,
                               "return_tokens": True, "n_probs": 8}).encode()
            request = urllib.request.Request(url + "/completion", body, {"Content-Type": "application/json"})
            with urllib.request.urlopen(request) as r:
                answer = json.load(r)
            probs = answer.get("completion_probabilities", [])
            out.append({"prompt": prompt, "ids": answer["tokens"],
                        # The 8 most likely tokens of each step and their log-probabilities (how close a tie was).
                        "top": [[[p["id"], round(p["logprob"], 6)] for p in step["top_logprobs"]]
                                 for step in probs]})
        return out
    finally:
        server.terminate()
        server.wait()


# llama.cpp with its KV cache in float32 (by default keys and values are kept in f16) and no flash attention,
# so that what is left to tell the two apart is mainly how the products take their activations (which
# loadModel's activations: 'llama.cpp' rounds as llama.cpp does for Q8_0, Q5_0, Q4_0 and BF16 matrices).
F32_CACHE = ("--cache-type-k", "f32", "--cache-type-v", "f32", "--flash-attn", "off")
F32_CACHE_SOURCE = ("llama.cpp (Debian llama.cpp-tools) llama-server, temperature 0, 1 thread, "
                    "--cache-type-k f32 --cache-type-v f32 --flash-attn off")
# The real stories260K (a Llama trained on TinyStories): ids of "Once upon a time" and two sentences of its
# kind, each after the beginning-of-sequence id 1, as its own tokenizer gives them (stories260K-q8_0.json).
STORIES_NEW_TOKENS = 24


def f32_cache_references():
    """Adds llamaCppF32Cache (llama.cpp's greedy ids with F32_CACHE, the prompts of llamaCpp) to every
    {name}.json that has llamaCpp, and llama.cpp's greedy ids both ways to stories260K-q8_0.json; the rest of
    each file is left as it is."""
    for name in sorted(os.listdir(OUT)):
        if not name.endswith(".json") or name in ("dequantize.json", "quantize.json", "tokenizer-reference.json"):
            continue
        path = os.path.join(OUT, name)
        with open(path) as f:
            out = json.load(f)
        gguf = path[:-len(".json")] + ".gguf"
        if name.startswith("stories260K"):
            ids = out["inputIds"]
            prompts, new_tokens = [[1] + ids[:4], [1] + ids, [1] + ids[4:9]], STORIES_NEW_TOKENS
            out["llamaCpp"] = {"source": "llama.cpp (Debian llama.cpp-tools) llama-server, temperature 0, 1 thread",
                               "greedy": llama_cpp_greedy(gguf, prompts, new_tokens)}
        elif "llamaCpp" in out:
            prompts, new_tokens = [g["prompt"] for g in out["llamaCpp"]["greedy"]], 12
        else:
            continue
        out["llamaCppF32Cache"] = {"source": F32_CACHE_SOURCE,
                                   "greedy": llama_cpp_greedy(gguf, prompts, new_tokens, F32_CACHE)}
        with open(path, "w") as f:
            json.dump(out, f)
            f.write("\n")


def references(model, files):
    with open(os.path.join(MODELS, f"hf-{model}", "reference.json")) as f:
        ref = json.load(f)
    sentence = ref["cases"][0]["inputIds"]
    prompts = [sentence[:8], ref["generate"][0]["inputIds"], [5, 17, 42, 99, 160, 200]]
    for file in files:
        out = {"model": model, "file": os.path.basename(file), "inputIds": sentence}
        out.update(transformers_reference(model, file, sentence))
        out["llamaCpp"] = {"source": "llama.cpp (Debian llama.cpp-tools) llama-server, temperature 0, 1 thread",
                           "greedy": llama_cpp_greedy(file, prompts, 12)}
        with open(file[:-len(".gguf")] + ".json", "w") as f:
            json.dump(out, f)
            f.write("\n")


TEXTS = [
    "用毒毒毒蛇，毒蛇会不会被毒毒死",
    "毒蛇咬人，人用毒药毒蛇。蛇会不会被毒死？没人知道。",
    "We poison the snake. Is the snake poisoned by the poison? Nobody knows, and it isn't ours to say.",
    "Emoji: 🐍☠️👩‍🔬 and 🇨🇳!",
    "Digits 0 1 12 123 1234 3.14159 and 2026-12-05",
    "  spaces   inside\tand\nnew lines  \n\n end  ",
    "<|im_start|>user\nhello<|im_end|>",
    "Once upon a time, there was <s> a cat</s>. It's 'S' and 'll'.",
]


def tokenizer_reference():
    """tokenizer-reference.json: written by make_gguf_tokenizer_fixtures.py (transformers' tokenizer of each GGUF
    file's metadata on TEXTS), which also writes the tokenizer fixtures it reads."""
    import make_gguf_tokenizer_fixtures as tokenizers
    tokenizers.tokenizer_reference()


def k_quant_model(kinds=("q4_k_m", "q5_k_m")):
    """llama-k-{kind}.gguf: K-quants need rows of 256, so a Llama a little wider than hf-llama (hidden 256,
    4 heads of 64, 1 layer; hf-llama's tokenizer), its parameters drawn from a seeded generator, saved by
    save_pretrained, converted to F32 by the converter and quantized by llama-quantize as Q4_K_M (which
    holds Q4_K and Q6_K tensors) and Q5_K_M (Q5_K and Q6_K). Only the quantized files are kept."""
    import shutil
    import tempfile
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    with open(os.path.join(MODELS, "hf-llama", "config.json")) as f:
        base = json.load(f)
    config = LlamaConfig(vocab_size=base["vocab_size"], hidden_size=256, intermediate_size=256, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=64, max_position_embeddings=64,
                         rms_norm_eps=1e-5, bos_token_id=base["bos_token_id"], eos_token_id=base["eos_token_id"],
                         tie_word_embeddings=False, rope_theta=10000.0)
    torch.manual_seed(39)
    net = LlamaForCausalLM(config)
    generator = torch.Generator().manual_seed(39)
    with torch.no_grad():
        for name, p in net.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.1 * torch.randn(p.shape, generator=generator))
            else:
                p.copy_(torch.randn(p.shape, generator=generator) * (0.5 if "embed" in name else 0.08))
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "llama-k")
        net.save_pretrained(folder)
        for name in ["tokenizer.json", "tokenizer_config.json"]:
            shutil.copy(os.path.join(MODELS, "hf-llama", name), folder)
        f32 = os.path.join(tmp, "llama-k-f32.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, CONVERTER, folder, "--outtype", "f32", "--outfile", f32, "none"],
                       check=True, capture_output=True)
        outs = []
        for kind in kinds:
            outs.append(os.path.join(OUT, f"llama-k-{kind}.gguf"))
            subprocess.run(["llama-quantize", f32, outs[-1], kind.upper(), "1"], check=True, capture_output=True)
    return outs


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    if "--llama-f32-cache-only" in sys.argv:
        f32_cache_references()
        sys.exit(0)
    if "--q5-k-only" in sys.argv:
        references("llama", k_quant_model(["q5_k_m"]))
        f32_cache_references()
        sys.exit(0)
    dequantize_fixture()
    quantize_fixture()
    if "--blocks-only" in sys.argv:
        sys.exit(0)
    if "--tokenizer-only" in sys.argv:
        tokenizer_reference()
        f32_cache_references()
        sys.exit(0)
    for model in MODELS_READ:
        files = [os.path.join(OUT, f"{model}-{t}.gguf") for t in TYPES + QUANTIZED]
        if "--references-only" not in sys.argv:
            files = convert(model)
        references(model, files)
    references("llama", [os.path.join(OUT, f"llama-k-{kind}.gguf") for kind in ["q4_k_m", "q5_k_m"]]
               if "--references-only" in sys.argv else k_quant_model())
    tokenizer_reference()
    # Last: references() and the tokenizer generator write their .json files without llama.cpp's f32-cache ids.
    f32_cache_references()
