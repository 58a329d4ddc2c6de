#!/usr/bin/env python3
"""Each shared helper has one home in the code that ships (tests are specifications and may spell
values out). Usage: one_home_check.py SOURCE_ROOT. Prints every copy found outside its home and
exits 1 when there is one."""
import pathlib
import re
import sys

SHIPPED = ["core", "host", "cli", "python", "plugins", "sdk", "bench"]
CODE = {".c", ".cc", ".cpp", ".h", ".hpp", ".py"}

# (what, pattern, its one home)
RULES = [
    ("the default log folder", re.compile(r"/tmp/cudabridge_logs"),
     "sdk/include/cudabridge/host_services.h"),
    ("a boolean word compared by hand (use sdk::parse_bool)",
     re.compile(r'(==|!=)\s*"(?:true|false|yes|no|on|off)"|"(?:true|false|yes|no|on|off)"\s*(==|!=)'
                r'|strn?casecmp\([^;]*"(?:true|false|yes|no|on|off)"|strcmp\([^;]*"(?:true|false|yes|no|on|off)"'),
     "sdk/include/cudabridge/cpp/bool_text.hpp"),
    ("a string getter filling *needed by hand (use sdk::copy_text_out)",
     re.compile(r"\*\s*needed\s*=[^=]"),
     "sdk/include/cudabridge/cpp/text_out.hpp"),
    ("a number formatted as 0x... by hand (use sdk::hex_text)",
     re.compile(r'"0x%0?\*?\d*l{0,2}[xX]'),
     "sdk/include/cudabridge/cpp/hex_text.hpp"),
    # A return type (or a template head) before the name marks a definition; calls have none.
    ("a CUDABRIDGE_ variable read by plain getenv (use sdk::secure_env: a privileged run ignores it)",
     re.compile(r'(?<!secure_)getenv\("CUDABRIDGE_'),
     "sdk/include/cudabridge/cpp/secure_env.hpp"),
    ("a copy_text defined again (use sdk::copy_text)",
     re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?(?:(?:static|inline|constexpr)\s+)*"
                r"(?!return\b)[\w:<>]+\s+copy_text\s*\("),
     "sdk/include/cudabridge/cpp/text_out.hpp"),
]


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    copies = []
    for top in SHIPPED:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in CODE or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            text = path.read_text(errors="replace")
            for line_no, line in enumerate(text.splitlines(), 1):
                for what, pattern, home in RULES:
                    if rel != home and pattern.search(line):
                        copies.append(f"{rel}:{line_no}: {what}; its home is {home}\n    {line.strip()}")
    for c in copies:
        print(c)
    print(f"{len(copies)} cop{'y' if len(copies) == 1 else 'ies'} outside their home")
    return 1 if copies else 0


if __name__ == "__main__":
    sys.exit(main())
