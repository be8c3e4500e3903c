#!/usr/bin/python3
"""Writes the man page of one netprof-NAME tool from the tool itself: NAME from the first
sentence of its docstring, DESCRIPTION from the docstring, OPTIONS from its --help (run with
the installed command's name, 80 columns wide), so the page never drifts from the script.
Run at build time by cmake/install.cmake:
    tool_man_page.py TOOL.py COMMAND VERSION OUT.1
"""

import ast
import contextlib
import io
import os
import runpy
import sys

sys.dont_write_bytecode = True  # imports the tool from the source folder: leave no __pycache__


def roff_text(text):
    """Text as roff reads it literally: backslashes escaped, no line taken as a request."""
    lines = []
    for line in text.replace("\\", "\\e").splitlines():
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def help_text(script, command):
    """What `COMMAND --help` prints. --netprof's default is said as on an installed system
    ("netprof", on PATH): found from this checkout it would name the build folder."""
    os.environ["COLUMNS"] = "80"
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(script)), "..", "lib"))
    import netprof_harness
    netprof_harness.default_netprof = lambda: "netprof"
    sys.argv = [command, "--help"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as end:
            if end.code not in (0, None):
                raise
    return out.getvalue()


def paragraphs(docstring):
    """The docstring as roff paragraphs; indented lines (examples) kept as they are."""
    out = []
    for block in docstring.strip().split("\n\n"):
        preformatted = any(line.startswith("    ") for line in block.splitlines())
        if preformatted:
            out += [".PP", ".nf", roff_text(block), ".fi"]
        else:
            out += [".PP", roff_text(" ".join(line.strip() for line in block.splitlines()))]
    return out


def main(script, command, version, out_path):
    with open(script) as f:
        docstring = ast.get_docstring(ast.parse(f.read())) or command
    summary = " ".join(docstring.split("\n\n")[0].split())
    summary = summary.split(". ")[0].rstrip(".")
    if summary[1:2].islower():  # "Runs ..." reads "runs ..." after the dash; "CI ..." stays
        summary = summary[0].lower() + summary[1:]
    usage = help_text(script, command)
    page = [f'.TH {command.upper()} 1 "" "netprof {version}" "User Commands"',
            ".SH NAME", f"{command} \\- {roff_text(summary)}",
            ".SH DESCRIPTION", *paragraphs(docstring),
            ".SH OPTIONS", ".nf", roff_text(usage.rstrip()), ".fi",
            ".SH SEE ALSO", "netprof(1)"]
    with open(out_path, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: tool_man_page.py TOOL.py COMMAND VERSION OUT.1")
    main(*sys.argv[1:])
