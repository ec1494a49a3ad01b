"""The part of tests/fixtures/models/TRANSFORMERS.md that one fixture generator writes.

Each generator (make_decoder_fixtures.py, make_marian_fixtures.py, make_query_key_fixtures.py) owns the
text between its own BEGIN and END markers: it replaces that section when it is there and appends it
otherwise, so that the generators can run in any order and each keeps the others' sections.
"""
import re


def write_section(md, begin, end, text):
    old = open(md, encoding="utf-8").read()
    block = begin + "\n" + text.strip() + "\n" + end
    if begin in old:
        new = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, old, flags=re.S)
    else:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    with open(md, "w", encoding="utf-8") as f:
        f.write(new)
