"""The top logits of transformers' own reading of a GGUF file (from_pretrained(gguf_file=...): its dequantized
float model, float32 for a 1.5B model's memory, eager attention) along a given path of ids, for
bench/llama-native.mjs --transformers: where mha-wasm and llama.cpp part, which of them the dequantized model
agrees with. Run in the sid chroot of tests/tools/make-hf-chroot.sh (EXTRA_PACKAGES="python3-gguf
python3-accelerate"):
    python3 gguf_top_logits.py FOLDER FILE.gguf PATH.json OUT.json
PATH.json: {"promptIds": [...], "steps": [[[id, logit], ...], ...]} (the path is each step's first id)."""
import importlib.metadata
import json
import sys

import gguf
import numpy as np

# Debian's gguf-py is missing from importlib's package map and defines no __version__, which transformers' check
# reads as 'N/A' and refuses: given the installed distribution's version (as make_gguf_fixtures.py does).
gguf.__version__ = importlib.metadata.version("gguf")
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoConfig, AutoModelForCausalLM  # noqa: E402

transformers.logging.set_verbosity_error()
folder, name, path_file, out_file = sys.argv[1:5]
path = json.load(open(path_file))
config = AutoConfig.from_pretrained(folder, gguf_file=name)
net = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, config=config, dtype=torch.float32,
                                           attn_implementation="eager")
net.eval()
prompt = path["promptIds"]
ids = prompt + [step[0][0] for step in path["steps"]]
with torch.no_grad():
    logits = net(torch.tensor([ids])).logits[0].numpy()
steps = []
for i in range(len(path["steps"])):
    row = logits[len(prompt) - 1 + i]
    steps.append([[int(t), float(row[t])] for t in np.argsort(-row)[:5]])
json.dump({"steps": steps, "source": f"transformers {transformers.__version__} from_pretrained(gguf_file=...), "
                                     f"torch {torch.__version__}, float32, eager attention"}, open(out_file, "w"))
