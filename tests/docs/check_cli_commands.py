#!/usr/bin/env python3
"""Every `cudabridge-cli` command the README and its translations show exists.

Usage: check_cli_commands.py CLI SOURCE_DIR

1. Extracts each command line (after `cudabridge-cli`, comments dropped) from README.md and
   docs/i18n/README.{ko,ja,zh}.md: code blocks, indented blocks and inline code.
2. Each translation must show the same set of command lines as README.md, and the same code
   blocks (fenced or indented) in the same order, so they stay in step.
3. For each command: `cudabridge-cli COMMAND --help` must succeed (an unknown command exits 2),
   and where the command has subcommands (its usage, from `cudabridge-cli --json help COMMAND`,
   lists them) the word after it must be one of them.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

TRANSLATIONS = ("ko", "ja", "zh")
# Global options that take a value (docs/cli.md).
GLOBAL_WITH_VALUE = {"-d", "--device", "--db", "--plugin-path", "--transport", "--gpu", "--safety",
                     "--log-sink"}
PROG = "cudabridge-cli"


def command_lines(text):
    """Every command line shown, as the text after `cudabridge-cli`, whitespace normalised."""
    found = []
    block_lines = []
    prose = []
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            prose.append("")
            continue
        if in_fence or line.startswith("    "):
            block_lines.append(line)
            prose.append("")
        else:
            prose.append(line)
    spans = re.findall(r"`([^`]+)`", "\n".join(prose))
    for source in block_lines + spans:
        source = " ".join(source.split())
        for m in re.finditer(r"(?:^|[\s($])" + re.escape(PROG) + r"(?=\s|$)(.*)", source):
            rest = m.group(1).split(" #")[0]
            rest = rest.split(")")[0] if "<(" in source else rest
            rest = rest.strip()
            if rest:
                found.append(rest)
    return found


def code_blocks(text):
    """Fenced and indented code blocks, in order, as text."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            blocks.append("\n".join(lines[i:j + 1]))
            i = j + 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and lines[j].startswith("    "):
                j += 1
            blocks.append("\n".join(lines[i:j]))
            i = j
        else:
            i += 1
    return blocks


def words_of(line):
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


class Cli:
    def __init__(self, path):
        self.path = path
        self._home = tempfile.TemporaryDirectory(prefix="cb-doc-cli-")  # removed at exit
        self.home = self._home.name
        self.env = dict(os.environ, CUDABRIDGE_HOME=self.home, XDG_STATE_HOME=self.home,
                        XDG_DATA_HOME=self.home, NO_COLOR="1")
        self.usage = {}

    def run(self, *args):
        return subprocess.run([self.path, *args], env=self.env, capture_output=True, text=True,
                              timeout=60)

    def subcommands(self, command):
        """(literal subcommands, whether a bare positional is also accepted) from its usage."""
        if command not in self.usage:
            r = self.run("--json", "help", command)
            usage = json.loads(r.stdout)["usage"] if r.returncode == 0 else ""
            self.usage[command] = usage
        usage = self.usage[command]
        body = usage.split(" ", 2)[2] if usage.count(" ") >= 2 else ""
        subs, free = set(), False
        for alt in body.split(" | "):
            toks = alt.split()
            if toks and toks[0] == command:  # "log ... | log write ..."
                toks = toks[1:]
            first = toks[0] if toks else ""
            if re.fullmatch(r"[a-z][a-z0-9-]*", first):
                subs.add(first)
            elif first and (first[0].isupper() or first.startswith("[") and first[1:2].isupper()):
                free = True  # a positional such as DEVICE or [COMMAND]
        return subs, free


def check_line(cli, line):
    """Problems with one command line ('' when it is fine)."""
    problems = []
    alternatives = [a.strip() for a in line.split(" | ")]
    for i, alt in enumerate(alternatives):
        words = words_of(alt)
        while words and words[0].startswith("-"):
            opt = words.pop(0)
            if opt in GLOBAL_WITH_VALUE and words:
                words.pop(0)
        if not words:
            continue
        command, args = words[0], words[1:]
        if i > 0 and not re.fullmatch(r"[a-z]+", command):
            continue  # a pipe into another program, not an alternative command
        if not re.fullmatch(r"[a-z][a-z0-9-]*", command):
            continue  # a placeholder (COMMAND)
        r = cli.run(command, "--help")
        if r.returncode != 0:
            problems.append(f"`{PROG} {line}`: `{command} --help` exits {r.returncode}: "
                            f"{(r.stderr or r.stdout).strip().splitlines()[:1]}")
            continue
        subs, free = cli.subcommands(command)
        if subs and args and not args[0].startswith("-") and not free and args[0] not in subs:
            problems.append(f"`{PROG} {line}`: `{command}` has no subcommand `{args[0]}` "
                            f"(it has {', '.join(sorted(subs))})")
    return problems


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    cli = Cli(sys.argv[1])
    root = sys.argv[2]
    docs = {"en": os.path.join(root, "README.md")}
    for lang in TRANSLATIONS:
        docs[lang] = os.path.join(root, "docs", "i18n", f"README.{lang}.md")

    problems = []
    lines = {}
    blocks = {}
    for lang, path in docs.items():
        if not os.path.exists(path):
            problems.append(f"{os.path.relpath(path, root)} is missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines[lang] = command_lines(text)
        blocks[lang] = code_blocks(text)

    english = set(lines.get("en", []))
    if not english:
        problems.append("README.md shows no cudabridge-cli command: the extraction is broken")
    for lang in TRANSLATIONS:
        if lang not in lines:
            continue
        shown = set(lines[lang])
        for missing in sorted(english - shown):
            problems.append(f"README.{lang}.md lacks `{PROG} {missing}`, which README.md shows")
        for extra in sorted(shown - english):
            problems.append(f"README.{lang}.md shows `{PROG} {extra}`, which README.md does not")
        if blocks[lang] != blocks.get("en"):
            theirs, ours = blocks[lang], blocks.get("en", [])
            n = next((k for k in range(min(len(theirs), len(ours))) if theirs[k] != ours[k]),
                     min(len(theirs), len(ours)))
            problems.append(f"README.{lang}.md's code blocks differ from README.md's from block "
                            f"{n + 1} on ({len(theirs)} blocks against {len(ours)})")

    checked = set()
    for lang in lines:
        for line in lines[lang]:
            if line not in checked:
                checked.add(line)
                problems += check_line(cli, line)

    for p in problems:
        print(p)
    print(f"{len(checked)} command lines checked in {len(lines)} documents, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
