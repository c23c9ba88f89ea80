#!/usr/bin/env python3
"""Writes a C++ header holding a text file as a std::string_view constant: embed_text.py IN OUT NAME.

The prompts stay plain, reviewable files in the tree and are compiled in (no file to find at
run time). The text goes in as a raw string literal, split so no chunk exceeds what compilers
accept and so the delimiter can never appear in it."""
import sys

src, out, name = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src, encoding="utf-8").read()
delimiter = "PLATFORM_EMBED"
assert f"){delimiter}\"" not in text
chunks = [text[i:i + 8000] for i in range(0, len(text), 8000)] or [""]
body = "\n".join(f'R"{delimiter}({c}){delimiter}"' for c in chunks)
with open(out, "w", encoding="utf-8") as f:
    f.write(f"#pragma once\n// Generated from {src.split('/')[-1]} by tools/embed_text.py: edit the source file.\n")
    f.write("#include <string_view>\n\n")
    f.write(f"inline constexpr std::string_view {name} =\n{body};\n")
