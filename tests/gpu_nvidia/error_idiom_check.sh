#!/usr/bin/env bash
# The gpu-nvidia plugin has one result/error idiom (plugins/gpu-nvidia/README.md, "Errors"): a
# fallible function returns cb_status and writes its message into a trailing `std::string& error`;
# only src/plugin/ (the boundary with the SDK) throws. This check fails when
#   - the retired value type comes back (`kernels::status`, `status::invalid(` ...), or
#   - a .cpp/.hpp under src/ outside src/plugin/ throws and is not on the allow-list below.
# Usage: error_idiom_check.sh <source root>
set -euo pipefail

root="${1:?usage: error_idiom_check.sh <source root>}"
src="$root/plugins/gpu-nvidia/src"
[[ -d "$src" ]] || { echo "no $src" >&2; exit 2; }

# Files that may throw, each with why the exception is acceptable there.
declare -A allowed=(
  # A constructor cannot return a status: mmap failing to reserve VRAM's address space.
  [sim/device_model/lazy_memory.cpp]=1
  # A constructor: the live-state file cannot be opened/mapped/validated (std::runtime_error, as
  # live_state.hpp documents); its lock also throws on an unrecoverable robust mutex.
  [sim/live_state/live_state.cpp]=1
  # The constructor's programming errors (std::invalid_argument: bad granule or range).
  [userspace/vram/vram_allocator.cpp]=1
  # `refusal` stays inside the file: the readers throw it, the entry functions catch it.
  [common/profiles/profile_json.cpp]=1
  # The PTX parser's syntax_error, caught by parse_ptx in the same file.
  [sim/ptx/parser.cpp]=1
  # The lowering's lowering_error, caught by its entry function in the same file.
  [sim/ptx/lowering.cpp]=1
)

failed=0

# 1. The retired status type and its factories.
if hits=$(grep -rnE --include='*.cpp' --include='*.hpp' \
    'kernels::status\b|\bstatus::(invalid|unsupported|success)\(|common/kernels/status\.hpp' "$src"); then
  echo "error_idiom_check: kernels::status is gone; return cb_status and write std::string& error:" >&2
  echo "$hits" >&2
  failed=1
fi
if [[ -e "$src/common/kernels/status.hpp" ]]; then
  echo "error_idiom_check: common/kernels/status.hpp is back" >&2
  failed=1
fi

# 2. throw outside src/plugin/ (comments stripped first, so prose about throwing is fine).
while IFS= read -r -d '' file; do
  rel="${file#"$src"/}"
  [[ "$rel" == plugin/* ]] && continue
  [[ -n "${allowed[$rel]:-}" ]] && continue
  if lines=$(sed -e 's://.*$::' "$file" | grep -nE '(^|[^[:alnum:]_])throw([^[:alnum:]_]|$)'); then
    echo "error_idiom_check: $rel throws; return cb_status + error (or add it to the allow-list with why):" >&2
    echo "$lines" | sed 's/^/  /' >&2
    failed=1
  fi
done < <(find "$src" -type f \( -name '*.cpp' -o -name '*.hpp' \) -print0)

# An allow-listed file that no longer throws should leave the list.
for rel in "${!allowed[@]}"; do
  # (grep without -q reads all of sed's output: no SIGPIPE to trip pipefail)
  if [[ ! -f "$src/$rel" ]] ||
    ! sed -e 's://.*$::' "$src/$rel" | grep -E '(^|[^[:alnum:]_])throw([^[:alnum:]_]|$)' >/dev/null; then
    echo "error_idiom_check: $rel is on the allow-list but does not throw; remove it" >&2
    failed=1
  fi
done

if [[ $failed -eq 0 ]]; then echo "error_idiom_check: OK"; fi
exit $failed
