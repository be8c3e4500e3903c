#!/usr/bin/python3
"""Lists C++ functions longer than a limit (default 60 lines), longest first.

    scripts/dev/long_functions.py [--limit N] [PATH ...]     (default paths: src transports)

A function is a brace block at namespace or class level whose head ends like a signature: a
closing parenthesis, then qualifiers (const, noexcept, override, a trailing return type) or a
constructor's initializer list. Comments, strings and character literals are blanked first, so
their braces do not count. Lambdas and blocks inside a function count toward that function.
Its length runs from the line of its name to the closing brace, both included.

A scan, not a parser: a macro that opens a brace can fool it, and it says so by listing the
block under the name it guessed. Exit status: 0 none over the limit, 1 some, 2 bad arguments.
"""

import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".hpp", ".cc", ".h")
CONTROL_WORDS = {"if", "for", "while", "switch", "catch", "do", "else", "try", "return",
                 "sizeof", "alignof", "decltype", "static_assert"}
# A head that ends a signature: ") const noexcept override", ") -> T", ") : m_a(a), m_b{b}".
SIGNATURE_END = re.compile(r"\)\s*(?:const|noexcept(?:\([^)]*\))?|override|final|mutable|&|&&|"
                           r"->\s*[\w:<>,\s*&]+|\s)*$")
INITIALIZER_LIST = re.compile(r"\)\s*(?:noexcept\s*)?:\s*[\w:]+\s*[({]")
NAME_BEFORE_PARAMETERS = re.compile(r"(~?[A-Za-z_][\w:]*(?:<[^<>]*>)?|operator\s*\S+)\s*\($")


def blank_comments_and_literals(text):
    """`text` with comments, strings and character literals turned into spaces, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            delimiter_end = text.find("(", i + 2)
            closing = ")" + text[i + 2:delimiter_end] + '"'
            j = text.find(closing, delimiter_end)
            j = n if j < 0 else j + len(closing)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(head):
    """The name a function head declares, or None when the head is no function's."""
    head = " ".join(head.split())
    if not (SIGNATURE_END.search(head) or INITIALIZER_LIST.search(head)):
        return None
    # The parameters: the parenthesis matching the first one after the name.
    depth = 0
    for index, char in enumerate(head):
        if char == "(":
            match = NAME_BEFORE_PARAMETERS.search(head[:index + 1])
            if depth == 0 and match:
                name = match.group(1)
                last_word = name.split("::")[-1]
                if last_word in CONTROL_WORDS or head.lstrip().startswith(("[", "=")):
                    return None
                return name
            depth += 1
        elif char == ")":
            depth -= 1
    return None


def long_functions(path, limit):
    """(lines, first line, name) of each function in `path` longer than `limit` lines."""
    with open(path, encoding="utf-8", errors="replace") as source:
        text = blank_comments_and_literals(source.read())
    found = []
    stack = []  # per open brace: None, or (name, first line) of the function it opens
    head_start = 0
    for index, char in enumerate(text):
        if char in ";}":
            if char == "}" and stack:
                opened = stack.pop()
                if opened:
                    name, first = opened
                    last = text.count("\n", 0, index) + 1
                    if last - first + 1 > limit:
                        found.append((last - first + 1, first, name))
            head_start = index + 1
        elif char == "{":
            inside_function = any(stack)
            head = text[head_start:index]
            name = None if inside_function else function_name(head)
            if name:
                offset = head_start + len(head) - len(head.lstrip())
                first = text.count("\n", 0, offset) + 1
                # The name's own line, past any template<> or attribute lines before it.
                name_at = text.find(name.split("::")[0], offset, index)
                if name_at >= 0:
                    first = text.count("\n", 0, name_at) + 1
                stack.append((name, first))
            else:
                stack.append(None)
            head_start = index + 1
    return found


def sources(paths):
    for root in paths:
        if os.path.isfile(root):
            yield root
            continue
        for folder, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(folder, name)


def main(argv):
    parser = argparse.ArgumentParser(description="List C++ functions over a line limit.")
    parser.add_argument("paths", nargs="*", default=["src", "transports"],
                        help="files or folders to scan (default: src transports)")
    parser.add_argument("--limit", type=int, default=60, help="longest allowed (default 60)")
    arguments = parser.parse_args(argv)
    if arguments.limit < 1:
        parser.error("--limit must be at least 1")
    for path in arguments.paths:
        if not os.path.exists(path):
            parser.error(f"no such file or folder: {path}")
    rows = []
    for path in sources(arguments.paths):
        rows += [(lines, path, first, name) for lines, first, name in
                 long_functions(path, arguments.limit)]
    for lines, path, first, name in sorted(rows, key=lambda row: (-row[0], row[1], row[2])):
        print(f"{lines:4d}  {path}:{first}  {name}")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
