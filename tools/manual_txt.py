#!/usr/bin/env python3
"""The Windows release's manual.txt: plain text for Notepad, written for Windows users.

usage: manual_txt.py HEADER.txt HELP_DIR DOC.md[:UNTIL]... > manual.txt

HEADER.txt goes first as it is (doc/windows-manual.txt). Then every option: the --help of
each program and command, as the programs print it (HELP_DIR/NN-TITLE.txt, in name order;
the title is the command line, '_' for a space). Then each DOC.md as plain text: headings
underlined, code indented, links and emphasis as their text, tables as one record a row,
images and comments left out; UNTIL: the text stops at the heading of that name (the parts
after it are for developers); a paragraph that speaks of the source tree's set-up (the
corpus beside a clone, meson install) is left out, since the zip holds neither. Lines end in
LF here; the release script makes them CRLF.
"""
import os
import re
import sys

SETUP = re.compile(r"\.\./shared|meson install|apt-get|sh tools/")
# The pages the manual holds, by file name: their titles (main() fills it), so that a page
# naming another ("see qc.md") names the part of this manual instead; a page the zip has
# not (formats.md, format-notes.md) is left out where it is named in parentheses.
TITLES = {}
# What the pages say in POSIX words, said in Windows' own
WINDOWS_WORDS = [
    (re.compile(r"an interrupt \(SIGINT, SIGTERM, SIGHUP\)"), "an interrupt (Ctrl+C, Ctrl+Break, the window closed)"),
    (re.compile(r"SIGINT"), "Ctrl+C"),
]


def pages(text):
    """References to doc pages: an included one as its part of this manual, another's
    parenthesis left out."""
    def own(m):
        title = TITLES.get(m.group(1))
        return 'the part "%s" of this manual' % title if title else m.group(0)
    text = re.sub(r"(?:doc/)?([\w-]+\.md)(?:#[\w-]+)?", own, text)
    text = re.sub(r" ?\([^()]*\b[\w-]+\.md\b[^()]*\)", "", text)
    for pattern, words in WINDOWS_WORDS:
        text = pattern.sub(words, text)
    return text


def inline(text):
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)           # images
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)        # links: their text
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)              # bold
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\1", text)  # italics
    text = re.sub(r"`([^`]*)`", r"\1", text)                    # code spans
    return text


def cells(row):
    return [inline(c.strip()) for c in row.strip().strip("|").split("|")]


def table(rows):
    """A table as records: the first column, then each other column as 'header: value'."""
    head = cells(rows[0])
    out = []
    for row in rows[2:]:
        c = cells(row)
        out.append("- " + c[0])
        for h, v in zip(head[1:], c[1:]):
            out.append("    %s: %s" % (h, v))
    return out


def heading(level, text):
    text = inline(text)
    if level == 1:
        return ["", text, "=" * len(text), ""]
    if level == 2:
        return ["", text, "-" * len(text), ""]
    return ["", text, ""]


def paragraph(lines):
    """A paragraph's lines, inline marks made text across its line breaks (a code span may
    go on over one); code lines (marked with a NUL) as they are."""
    if lines and lines[0].startswith("\0"):
        return [x[1:] for x in lines]
    return pages(inline("\n".join(lines))).split("\n") if lines else []


def markdown(path, until):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, block, fence, comment = [], [], False, False
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if comment or line.strip().startswith("<!--"):
            comment = "-->" not in line
            continue
        if line.startswith("```"):
            fence = not fence
            blocks.append(paragraph(block))
            block = []
            continue
        if fence:
            block.append("\0  " + line)
            continue
        m = re.match(r"^(#+)\s+(.*)$", line)
        if m:
            if until and m.group(2).strip() == until:
                break
            blocks.append(paragraph(block))
            blocks.append(heading(len(m.group(1)), m.group(2)))
            block = []
            continue
        if line.startswith("|"):
            rows = [line]
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            blocks.append(paragraph(block))
            blocks.append(table(rows) + [""])
            block = []
            continue
        if not line.strip():
            blocks.append(paragraph(block) + [""])
            block = []
            continue
        block.append(line)
    blocks.append(paragraph(block))
    out = []
    for b in blocks:
        if any(SETUP.search(x) for x in b):
            continue
        out.extend(b)
    # one blank line between parts, none at the ends
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")
    return text


def main():
    header, helps, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
    out = [open(header, encoding="utf-8").read().rstrip("\n"), ""]
    title = "Every option: what each program and command prints for --help"
    out += ["", title, "=" * len(title), ""]
    for name in sorted(os.listdir(helps)):
        command = re.sub(r"^\d+-", "", name[:-4]).replace("_", " ")
        out += ["", command, "-" * len(command), ""]
        out += [open(os.path.join(helps, name), encoding="utf-8").read().rstrip("\n"), ""]
    for d in docs:
        path = d.partition(":")[0]
        for line in open(path, encoding="utf-8"):
            if line.startswith("# "):
                TITLES[os.path.basename(path)] = inline(line[2:].strip())
                break
    for d in docs:
        path, _, until = d.partition(":")
        out += ["", markdown(path, until), ""]
    sys.stdout.write(re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n")


main()
