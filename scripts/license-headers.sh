#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project starts with its licence header (LICENSE: Apache-2.0).
# Java files get theirs from spotless (`mvn spotless:apply`, java/license-header.txt); this script
# covers Rust, Go, shell and Python (the .proto files are Vitess's own, under its licence). `--fix` adds missing headers; without it, missing ones fail.
#   bash scripts/license-headers.sh [--fix]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fix=0
[ "${1:-}" = --fix ] && fix=1
LINE1="Copyright 2026 The vitess-cdc Authors"
LINE2="SPDX-License-Identifier: Apache-2.0"
missing=()
while IFS= read -r f; do
  if head -n 5 "$f" | grep -q "$LINE2"; then continue; fi
  if [ "$fix" = 0 ]; then missing+=("$f"); continue; fi
  case "$f" in
    *.rs | *.go) printf '// %s\n// %s\n\n' "$LINE1" "$LINE2" | cat - "$f" > "$f.tmp" ;;
    *)
      # After a shebang line, if any.
      if head -n 1 "$f" | grep -q '^#!'; then
        { head -n 1 "$f"; printf '# %s\n# %s\n' "$LINE1" "$LINE2"; tail -n +2 "$f"; } > "$f.tmp"
      else
        { printf '# %s\n# %s\n' "$LINE1" "$LINE2"; cat "$f"; } > "$f.tmp"
      fi ;;
  esac
  chmod --reference="$f" "$f.tmp" && mv "$f.tmp" "$f"
done < <(git ls-files '*.rs' '*.go' '*.sh' '*.py' '.ci/run')
if [ ${#missing[@]} -gt 0 ]; then
  printf 'missing licence header (run: bash scripts/license-headers.sh --fix):\n' >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
