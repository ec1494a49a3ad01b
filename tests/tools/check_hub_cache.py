"""huggingface_hub and transformers themselves against the engine's Hub code.

Run by tests/tools/make_hub_fixtures.mjs inside the transformers chroot
(tests/tools/make-hf-chroot.sh), with tests/tools/hub-server.mjs
listening at --endpoint:

1. Online, Python downloads the repo from the test hub server the way a user
   would (AutoTokenizer / AutoModel.from_pretrained) into --python-cache:
   the cache tests/js/hub.test.mjs then loads offline (a model Python
   downloaded loads without a request), and the proof that the test server
   speaks the Hub's HTTP as huggingface_hub reads it.
2. Offline (local_files_only), Python loads the repo from --node-cache, the
   cache the engine's loader wrote: the model, its tokenizer and
   hf_hub_download of every file the loader fetched are found, and the model
   gives reference.json's hidden states.

Prints a JSON report on stdout (tests/fixtures/hub/python-report.json).
"""

import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--python-cache", required=True)
    parser.add_argument("--node-cache", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    # Read when huggingface_hub is imported.
    os.environ["HF_ENDPOINT"] = args.endpoint
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_HUB_DISABLE_XET"] = "1"

    import huggingface_hub
    import torch
    import transformers
    from huggingface_hub import hf_hub_download, scan_cache_dir
    from transformers import AutoModel, AutoTokenizer

    report = {
        "huggingface_hub": huggingface_hub.__version__,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "repo": args.repo,
    }

    # 1. Python downloads from the test hub.
    AutoTokenizer.from_pretrained(args.repo, cache_dir=args.python_cache)
    AutoModel.from_pretrained(args.repo, cache_dir=args.python_cache, attn_implementation="eager")
    info = scan_cache_dir(args.python_cache)
    report["pythonCache"] = [
        {
            "repo": r.repo_id,
            "refs": sorted(r.refs),
            "files": sorted(f.file_name for rev in r.revisions for f in rev.files),
        }
        for r in info.repos
    ]
    report["pythonCacheWarnings"] = [str(w) for w in info.warnings]

    # 2. Python reads what the engine's loader wrote, offline.
    node = scan_cache_dir(args.node_cache)
    report["nodeCacheWarnings"] = [str(w) for w in node.warnings]
    files = sorted(f.file_name for r in node.repos for rev in r.revisions for f in rev.files)
    report["nodeCacheFiles"] = files
    for name in files:
        hf_hub_download(args.repo, name, cache_dir=args.node_cache, local_files_only=True)
    reference = json.load(open(args.reference))
    case = reference["cases"][0]
    tokenizer = AutoTokenizer.from_pretrained(args.repo, cache_dir=args.node_cache, local_files_only=True)
    model = AutoModel.from_pretrained(
        args.repo, cache_dir=args.node_cache, local_files_only=True, attn_implementation="eager", dtype=torch.float64
    )
    # The model on the reference's ids (the tokenizer was found; its ids are reported, not used:
    # transformers 5 rebuilds XLMRobertaTokenizer's normalizer instead of tokenizer.json's NFKC).
    text = case["input"] if isinstance(case["input"], str) else case["input"]["text"]
    ids = torch.tensor([case["inputIds"]])
    with torch.no_grad():
        out = model(ids)
    got = out.last_hidden_state[0].flatten().tolist()
    want = case["lastHiddenState"]
    report["offlineFromNodeCache"] = {
        "case": case["name"],
        "tokenizer": type(tokenizer).__name__,
        "tokenizerIds": tokenizer(text)["input_ids"],
        "referenceIds": case["inputIds"],
        "lastHiddenStateMaxAbsDiff": max(abs(a - b) for a, b in zip(got, want)) if len(got) == len(want) else None,
    }
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
