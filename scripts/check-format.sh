#!/usr/bin/env bash
# The `format` test: every C++ file is as .clang-format lays it out. Names each file that is not,
# with the command that formats it. (clang-format 14, as Debian 12 has it: scripts/setup.sh.)
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$CF" ]; then
  echo "check-format: clang-format not found; scripts/setup.sh installs it (Debian package clang-format)" >&2
  exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find agent app backend tests ui -name '*.cpp' -o -name '*.h')
fi
# One clang-format for all (a process per file took a minute beside the other tests); it names
# each line it would change as FILE:LINE:COLUMN.
mapfile -t unformatted < <("$CF" --dry-run "${files[@]}" 2>&1 | sed -n 's/^\(.*\):[0-9]*:[0-9]*: \(warning\|error\): code should be clang-formatted.*/\1/p' | sort -u)
for f in "${unformatted[@]}"; do echo "not formatted: $f   (clang-format -i $f)"; done
echo "check-format: ${#files[@]} files, ${#unformatted[@]} not formatted"
[ "${#unformatted[@]}" -eq 0 ]
