#!/usr/bin/env bash
# Instructions per redraw, measured with callgrind: the difference between a
# run with N redraws and one with none (start-up and warm-up cancel out).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
swift build -c release --product render-bench >/dev/null
bin="$top/.build/release/render-bench"
n=${N:-20}
count() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --only "$1" "$2" 2>"$out" >/dev/null
  grep -o 'Collected : [0-9]*' "$out" | grep -o '[0-9]*'
  rm -f "$out"
}
for s in full-800x480 full-1920x1080 partial-800x480 partial-1920x1080; do
  base=$(count "$s" 0)
  with=$(count "$s" "$n")
  echo "$s: $(( (with - base) / n )) instructions per redraw"
done
