"""Chat-template references by transformers itself, for tests/js/chat-template.test.mjs and chat.test.mjs.

Run in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-transformers, python3-gguf):

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_chat_fixtures.py"

Writes tests/fixtures/chat/ (its README.md says what each file is and where the templates came from):
- tokenizer-configs/<template>.json: hf-qwen2's tokenizer_config.json with the template as chat_template
  (and the model's own bos_token/eos_token strings), plus named-list.json (the [{name, template}] form);
  cases of template 'chat_template.jinja': Llama 3.1's tokenizer_config.json with Qwen2.5-7B's template as a
  chat_template.jinja beside it (transformers takes the file's);
- cases.json: transformers' apply_chat_template(tokenize=False) of each template over each conversation with
  add_generation_prompt false and true, read from those tokenizer_config.json files by AutoTokenizer; the ids
  (tokenize=True) where the template's special tokens are the tokenizer's (ChatML: Qwen2.5, SmolLM2);
- qwen2-chat/config.json: hf-qwen2's config with 256 positions (Qwen2 has no position table: the weights are
  hf-qwen2's as they are), and conversation.json: a two-turn conversation as transformers runs it — the ids of
  each turn, greedy generate()'s new ids, the reply decoded, and the float64 logits of turn 2's last position;
- qwen2-chat.gguf: tests/fixtures/gguf/qwen2-f32.gguf with tokenizer.chat_template added by gguf-py
  (gguf_new_metadata's copy), and gguf-cases.json: AutoTokenizer.from_pretrained(gguf_file=…)'s rendering;
- strftime.json: Python's datetime.strftime of fixed dates (the strftime_now that templates call).
"""
import datetime
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "chat")
QWEN2 = os.path.join(ROOT, "tests", "fixtures", "models", "hf-qwen2")
GGUF_IN = os.path.join(ROOT, "tests", "fixtures", "gguf", "qwen2-f32.gguf")

import gguf  # noqa: E402

# Debian's gguf-py is missing from importlib's package map: transformers would read its version as 'N/A'
# (make_gguf_fixtures.py does the same).
gguf.__version__ = importlib.metadata.version("gguf")
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

transformers.logging.set_verbosity_error()

# The templates (templates/*.jinja, see the README for their sources) and the special tokens their models'
# tokenizer_config.json give them.
TEMPLATES = {
    "qwen2.5-7b-instruct": {"bos_token": None, "eos_token": "<|im_end|>"},
    "qwen2.5-0.5b-instruct": {"bos_token": None, "eos_token": "<|im_end|>"},
    "llama-3.1-8b-instruct": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "llama-3.2-3b-instruct": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "smollm2-135m-instruct": {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"},
}
# Templates whose every special token is one of hf-qwen2's tokenizer's (so the ids are comparable).
CHATML = {"qwen2.5-7b-instruct", "qwen2.5-0.5b-instruct", "smollm2-135m-instruct"}

SNAKE = "用毒毒毒蛇，毒蛇会不会被毒毒死"
CONVERSATIONS = {
    "system": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello, who are you?"},
    ],
    "no-system": [{"role": "user", "content": SNAKE}],
    "multi-turn": [
        {"role": "system", "content": "你是一个乐于助人的助手。"},
        {"role": "user", "content": SNAKE},
        {"role": "assistant", "content": "不会，蛇毒对蛇本身通常无效。"},
        {"role": "user", "content": "  Why?  \n"},
    ],
    "ends-with-assistant": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
        {"role": "user", "content": "Tell me a joke."},
        {"role": "assistant", "content": "Why did the snake cross the road?"},
    ],
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_current_temperature",
            "description": "Get the current temperature at a location.",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string", "description": "The location, 'City, Country'"}},
                "required": ["location"],
            },
        },
    }
]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


def tokenizer_folder(config):
    """A folder with hf-qwen2's tokenizer.json and `config` as tokenizer_config.json, for AutoTokenizer."""
    folder = tempfile.mkdtemp()
    shutil.copy(os.path.join(QWEN2, "tokenizer.json"), folder)
    write_json(os.path.join(folder, "tokenizer_config.json"), config)
    return folder


def base_config():
    return json.loads(read(os.path.join(QWEN2, "tokenizer_config.json")))


def render_cases(name, tokenizer, with_ids, extra=None):
    cases = []
    for conversation, messages in CONVERSATIONS.items():
        for agp in (False, True):
            kwargs = dict(extra or {})
            text = tokenizer.apply_chat_template(messages, add_generation_prompt=agp, tokenize=False, **kwargs)
            case = {"template": name, "conversation": conversation, "addGenerationPrompt": agp,
                    "variables": kwargs, "text": text}
            if with_ids:
                case["ids"] = list(tokenizer.apply_chat_template(messages, add_generation_prompt=agp,
                                                                 tokenize=True, return_dict=False, **kwargs))
            cases.append(case)
    return cases


def template_cases():
    cases = []
    for name, tokens in TEMPLATES.items():
        config = {**base_config(), **tokens, "chat_template": read(os.path.join(OUT, "templates", f"{name}.jinja"))}
        write_json(os.path.join(OUT, "tokenizer-configs", f"{name}.json"), config)
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder(config))
        # Llama 3.2's template dates its system block by strftime_now when it has no date_string: given one.
        extra = {"date_string": "26 Jul 2024"} if name.startswith("llama-3.2") else None
        cases += render_cases(name, tokenizer, name in CHATML, extra)
        # continue_final_message: the final (assistant) message left open, its trailing space kept or, where
        # the template trims it (Llama's), cut.
        for ending in ("Why did the snake", "因为蛇毒 "):
            messages = CONVERSATIONS["ends-with-assistant"][:-1] + [{"role": "assistant", "content": ending}]
            text = tokenizer.apply_chat_template(messages, continue_final_message=True, tokenize=False,
                                                 **(extra or {}))
            cases.append({"template": name, "conversation": "continue", "addGenerationPrompt": False,
                          "continueFinalMessage": True, "messages": messages, "variables": extra or {},
                          "text": text})
        if name in ("qwen2.5-7b-instruct", "llama-3.1-8b-instruct"):
            messages = [{"role": "user", "content": "What is the temperature in Paris?"}]
            text = tokenizer.apply_chat_template(messages, tools=TOOLS, add_generation_prompt=True, tokenize=False)
            cases.append({"template": name, "conversation": "tools", "addGenerationPrompt": True, "tools": TOOLS,
                          "messages": messages, "variables": {}, "text": text})
    # A chat_template.jinja beside tokenizer_config.json's chat_template: transformers takes the file's.
    folder = tokenizer_folder(json.loads(read(os.path.join(OUT, "tokenizer-configs", "llama-3.1-8b-instruct.json"))))
    shutil.copy(os.path.join(OUT, "templates", "qwen2.5-7b-instruct.jinja"), os.path.join(folder, "chat_template.jinja"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    for agp in (False, True):
        text = tokenizer.apply_chat_template(CONVERSATIONS["multi-turn"], add_generation_prompt=agp, tokenize=False)
        cases.append({"template": "chat_template.jinja", "conversation": "multi-turn", "addGenerationPrompt": agp,
                      "variables": {}, "text": text})
    # The named-list form: 'default' without tools, 'tool_use' with them.
    named = [
        {"name": "default", "template": read(os.path.join(OUT, "templates", "smollm2-135m-instruct.jinja"))},
        {"name": "tool_use", "template": read(os.path.join(OUT, "templates", "qwen2.5-7b-instruct.jinja"))},
    ]
    config = {**base_config(), "bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "chat_template": named}
    write_json(os.path.join(OUT, "tokenizer-configs", "named-list.json"), config)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder(config))
    messages = CONVERSATIONS["system"]
    for tools in (None, TOOLS):
        text = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
        case = {"template": "named-list", "conversation": "system", "addGenerationPrompt": True, "variables": {},
                "text": text}
        if tools:
            case["tools"] = tools
        cases.append(case)
    return cases


def two_turns(tokenizer, net, first, second, new_tokens):
    """Two turns as transformers runs them: each turn's ids rendered from the messages, greedy generate()."""
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": first}]
    turns = []
    for user in (None, second):
        if user is not None:
            messages = messages + [{"role": "assistant", "content": turns[-1]["reply"]},
                                   {"role": "user", "content": user}]
        ids = list(tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                 return_dict=False))
        with torch.no_grad():
            out = net.generate(torch.tensor([ids]), max_new_tokens=new_tokens, do_sample=False)
            logits = net(torch.tensor([ids])).logits[0, -1].numpy()
        new = out[0, len(ids):].tolist()
        turns.append({
            "messages": messages,
            "inputIds": ids,
            "newIds": new,
            "reply": tokenizer.decode(new, skip_special_tokens=True),
            "lastLogits": [float(f"{v:.9g}") for v in logits],
        })
    # Whether turn 2's ids extend what a KV cache holds after turn 1 (its ids, and the new ids but the last,
    # which was chosen and not fed): they do unless the reply, decoded and tokenized again, gives other ids.
    held = turns[0]["inputIds"] + turns[0]["newIds"][:-1]
    extends = turns[1]["inputIds"][:len(held)] == held
    return {"first": first, "second": second, "extends": extends, "turns": turns}


def conversation_reference():
    """Two-turn conversations on hf-qwen2 with 256 positions, as transformers runs them (greedy, float64)."""
    config = json.loads(read(os.path.join(QWEN2, "config.json")))
    config["max_position_embeddings"] = 256
    folder = os.path.join(OUT, "qwen2-chat")
    write_json(os.path.join(folder, "config.json"), config)
    model_dir = tempfile.mkdtemp()
    for name in ("model.safetensors", "tokenizer.json", "generation_config.json"):
        shutil.copy(os.path.join(QWEN2, name), model_dir)
    shutil.copy(os.path.join(folder, "config.json"), model_dir)
    shutil.copy(os.path.join(OUT, "tokenizer-configs", "qwen2.5-7b-instruct.json"),
                os.path.join(model_dir, "tokenizer_config.json"))
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    net = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float64, attn_implementation="eager")
    net.eval()
    new_tokens = 6
    # The first of these first messages whose reply tokenizes back to its own ids (the random model's
    # replies are often bytes of no whole character), and the Chinese one, whose reply does not.
    conversations = []
    for first in ("Hi", "Hello", "Tell me a joke.", "the cat sat", "How are you?", "ok", "Why?", "a b c"):
        found = two_turns(tokenizer, net, first, "Why?", new_tokens)
        if found["extends"]:
            conversations.append(found)
            break
    conversations.append(two_turns(tokenizer, net, SNAKE, "Why?", new_tokens))
    write_json(os.path.join(OUT, "conversation.json"), {
        "transformers": f"transformers {transformers.__version__}, torch {torch.__version__}, float64, eager",
        "maxNewTokens": new_tokens,
        "conversations": conversations,
    })


def gguf_fixture():
    from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata
    out = os.path.join(OUT, "qwen2-chat.gguf")
    template = read(os.path.join(OUT, "templates", "qwen2.5-7b-instruct.jinja"))
    reader = gguf.GGUFReader(GGUF_IN, "r")
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
    writer = gguf.GGUFWriter(out, arch=arch, endianess=reader.endianess)
    copy_with_new_metadata(reader, writer, {
        gguf.Keys.Tokenizer.CHAT_TEMPLATE: MetadataDetails(gguf.GGUFValueType.STRING, template)}, [])
    writer.close()
    tokenizer = AutoTokenizer.from_pretrained(OUT, gguf_file="qwen2-chat.gguf")
    cases = render_cases("qwen2-chat.gguf", tokenizer, True)
    write_json(os.path.join(OUT, "gguf-cases.json"), {
        "transformers": f"transformers {transformers.__version__} AutoTokenizer.from_pretrained(gguf_file=...), "
                        f"gguf-py {gguf.__version__}",
        "cases": cases,
    })


def strftime_cases():
    dates = [datetime.datetime(2024, 7, 26, 9, 5, 3), datetime.datetime(2025, 1, 1, 23, 59, 59),
             datetime.datetime(2026, 12, 5, 0, 0, 0)]
    formats = ["%d %b %Y", "%d %B %Y", "%Y-%m-%d", "%H:%M:%S", "%a %A %y %j %I %p %%", "%e|%-d", "no format"]
    out = []
    for d in dates:
        for f in formats:
            try:
                out.append({"date": [d.year, d.month, d.day, d.hour, d.minute, d.second], "format": f,
                            "text": d.strftime(f)})
            except ValueError:
                pass
    write_json(os.path.join(OUT, "strftime.json"), out)


def main():
    cases = template_cases()
    write_json(os.path.join(OUT, "cases.json"), {
        "transformers": f"transformers {transformers.__version__} apply_chat_template, jinja2 "
                        f"{importlib.metadata.version('jinja2')}",
        "conversations": CONVERSATIONS,
        "cases": cases,
    })
    conversation_reference()
    gguf_fixture()
    strftime_cases()
    print(f"{len(cases)} template cases", file=sys.stderr)


if __name__ == "__main__":
    main()
