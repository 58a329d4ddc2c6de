#!/usr/bin/env python3
"""Every repository path a user-facing document names must exist.

Usage: check_doc_paths.py SOURCE_DIR

The documents: every Markdown file outside tests/ and the build folders
(README.md, docs/, docs/i18n/, each part's README.md, sdk/docs/). A path is
what stands between backticks or in a Markdown link target. It is checked when
its first component is an entry of the repository's root or of the document's
own folder (paths in a part's README are relative to that part); a bare file
name (`plugin.h`) must exist somewhere in the tree. Paths under an install
prefix (`lib/...`, `bin/...`), absolute paths, placeholders (`NAME`, `<...>`,
`*`) and build outputs are not repository paths and are left alone.
"""
import os
import re
import sys

SKIP_DIRS = {".git", "node_modules", "__pycache__"}
# A path whose first component is one of these is an output, not a source.
OUTPUT_ROOTS = {"build", "build-asan", "build-fuzz", "build-tsan"}
FILE_EXT = re.compile(
    r"\.(md|c|h|cc|cpp|hpp|py|sh|txt|cmake|json|toml|cu|ptx|in|map|yml|yaml|csv)$")
# Files the documents name as outside sources, not as files of this repository.
EXTERNAL = {
    "gpu_specs.csv",  # Lambda's LLM calculator data (docs/gpu-profiles.md)
    "apple-dart.c",   # Linux drivers/iommu/apple-dart.c (docs/link-figures.md)
}
PLACEHOLDER = re.compile(r"[<>$*?{}~\[\]]|\.\.\.|\bNAME\b|\bKIND\b|\bMODEL\b|\bFILE\b")


def is_build_dir(name):
    return name in OUTPUT_ROOTS or name.startswith("build")


def documents(root):
    """Every Markdown file of the tree, outside tests/ and build folders."""
    docs = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(n for n in dirnames
                             if n not in SKIP_DIRS and not (rel == "." and (is_build_dir(n) or n == "tests")))
        docs += sorted(os.path.join(dirpath, f) for f in filenames if f.endswith(".md"))
    return docs


def all_basenames(root):
    names = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [n for n in dirnames
                       if n not in SKIP_DIRS and not (rel == "." and is_build_dir(n))]
        names.update(filenames)
        names.update(dirnames)
    return names


def exists(path):
    """A path, `a.hpp/.cpp` (both files), or a source stem (`src/text` for text.cpp/.hpp)."""
    m = re.match(r"^(.*)\.(\w+)/\.(\w+)$", path)
    if m:
        return all(os.path.exists(f"{m.group(1)}.{ext}") for ext in (m.group(2), m.group(3)))
    if os.path.exists(path):
        return True
    d, stem = os.path.split(path)
    return bool(stem) and "." not in stem and os.path.isdir(d or ".") and any(
        os.path.splitext(n)[0] == stem for n in os.listdir(d or "."))


def candidates(text):
    """(line number, token) for every backtick span and link target."""
    in_fence = False
    for no, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in re.finditer(r"`([^`]+)`", line):
            yield no, m.group(1)
        for m in re.finditer(r"\]\(([^)\s]+)\)", line):
            target = m.group(1)
            if not re.match(r"^[a-z]+:", target) and not target.startswith("#"):
                yield no, target.split("#")[0]


def check(root):
    root = os.path.abspath(root)
    root_entries = {n for n in os.listdir(root) if n not in SKIP_DIRS and not is_build_dir(n)}
    basenames = all_basenames(root)
    problems = []
    checked = 0
    for doc in documents(root):
        docdir = os.path.dirname(doc)
        doc_entries = set(os.listdir(docdir))
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        for no, tok in candidates(text):
            tok = tok.strip().rstrip(".,;:")
            tok = re.sub(r":\d+(-\d+)?$", "", tok)  # file.cpp:123
            if not tok or " " in tok or "=" in tok or tok.startswith(("/", "-", "http")):
                continue
            if PLACEHOLDER.search(tok) or "(" in tok:
                continue
            if "/" not in tok:
                # A bare name: a file with a source extension must exist somewhere.
                if FILE_EXT.search(tok) and not tok.startswith("."):
                    checked += 1
                    if tok not in basenames and tok not in EXTERNAL:
                        problems.append(f"{os.path.relpath(doc, root)}:{no}: `{tok}` is no file in the tree")
                continue
            path = tok[2:] if tok.startswith("./") else tok
            first = path.split("/")[0]
            if first == "..":
                bases = [docdir]
            elif first in root_entries and first in doc_entries and docdir != root:
                bases = [docdir, root]
            elif first in doc_entries:
                bases = [docdir]
            elif first in root_entries:
                bases = [root]
            else:
                continue  # not a repository path (an install prefix, a generated file)
            checked += 1
            if not any(exists(os.path.normpath(os.path.join(b, path))) for b in bases):
                problems.append(f"{os.path.relpath(doc, root)}:{no}: `{tok}` does not exist")
    return checked, problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    checked, problems = check(root)
    for p in problems:
        print(p)
    print(f"{checked} paths checked, {len(problems)} missing")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
