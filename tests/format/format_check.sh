#!/usr/bin/env bash
# format_check.sh SOURCE_DIR: every C and C++ source of the tree is as clang-format 14 writes it
# with the root .clang-format (Debian 12's clang-format-14; another version formats differently).
# To apply: clang-format-14 -i <files>. CUDA sources (.cu, .cuh) are left as written.
set -euo pipefail
root=$1
tool=$(command -v clang-format-14 || true)
if [[ -z $tool ]]; then
  echo "clang-format-14 is not installed (scripts/install-deps.sh installs it): skipped"
  exit 77
fi
cd "$root"
mapfile -t files < <(find sdk core host cli python plugins tests examples bench \
  -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c' | sort)
((${#files[@]} > 500)) || { echo "FAIL: found only ${#files[@]} sources under $root" >&2; exit 1; }
if ! "$tool" --dry-run -Werror "${files[@]}" 2>"${TMPDIR:-/tmp}/format_check.$$"; then
  grep -E '^[^ ].*: (error|warning):' "${TMPDIR:-/tmp}/format_check.$$" | cut -d: -f1 | sort -u | head -20 >&2
  rm -f "${TMPDIR:-/tmp}/format_check.$$"
  echo "FAIL: the files above are not formatted (clang-format-14 -i FILE)" >&2
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/format_check.$$"
echo "${#files[@]} sources formatted as .clang-format says: ok"
