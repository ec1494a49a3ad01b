"""Quantized GGUF files with a chat template, for the page's chat box (tests/e2e/page-chat.test.mjs).

Run in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-gguf):
  bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- python3 "$PWD/tests/tools/make_page_chat_fixtures.py"

Writes, with gguf-py's gguf_new_metadata copy (the tensors and every other key unchanged):
- tests/fixtures/chat/qwen2-chat-q8_0.gguf: tests/fixtures/gguf/qwen2-q8_0.gguf (llama-quantize's Q8_0 of the
  tiny qwen2) with tokenizer.chat_template = templates/qwen2.5-0.5b-instruct.jinja (Qwen2.5-0.5B-Instruct's GGUF
  template), {arch}.context_length 256 (from 64);
- tests/fixtures/chat/llama-chat-q4_k_m.gguf: tests/fixtures/gguf/llama-k-q4_k_m.gguf (llama-quantize's Q4_K_M
  of the tiny llama) with tokenizer.chat_template = templates/llama-3.2-3b-instruct.jinja, and context_length 256.
The page's replies are compared with Node's model.chat() on the same files; the templates' rendering is
checked against transformers by tests/js/chat-template.test.mjs.
"""
import os

import gguf
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHAT = os.path.join(ROOT, "tests", "fixtures", "chat")
GGUF = os.path.join(ROOT, "tests", "fixtures", "gguf")
CONTEXT = 256


def with_template(source, template, out):
    with open(os.path.join(CHAT, "templates", template), encoding="utf-8") as f:
        text = f.read()
    reader = gguf.GGUFReader(os.path.join(GGUF, source), "r")
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
    writer = gguf.GGUFWriter(os.path.join(CHAT, out), arch=arch, endianess=reader.endianess)
    copy_with_new_metadata(reader, writer, {
        gguf.Keys.Tokenizer.CHAT_TEMPLATE: MetadataDetails(gguf.GGUFValueType.STRING, text),
        # Room for a conversation (the rope models have no position table: the weights serve as they are).
        gguf.Keys.LLM.CONTEXT_LENGTH.format(arch=arch): MetadataDetails(gguf.GGUFValueType.UINT32, CONTEXT)}, [])
    writer.close()


if __name__ == "__main__":
    with_template("qwen2-q8_0.gguf", "qwen2.5-0.5b-instruct.jinja", "qwen2-chat-q8_0.gguf")
    with_template("llama-k-q4_k_m.gguf", "llama-3.2-3b-instruct.jinja", "llama-chat-q4_k_m.gguf")
