#!/usr/bin/env bash
# Runs the Chung & Ooi validation cases 1-8 in LIGGGHTS 3.8 (by hand, not in CI) and
# writes validation/liggghts/results.csv; then `talus validate` adds a
# LIGGGHTS column to validation/report.md. See docs/validation.md.
set -euo pipefail
cd "$(dirname "$0")"
command -v "${LIGGGHTS:-liggghts}" >/dev/null || {
  echo "liggghts not found (Debian: apt-get install liggghts, or set LIGGGHTS=/path/to/binary)" >&2
  exit 1
}
[ "${1:-}" = drum ] && { shift; exec python3 drum.py "$@"; }  # the rotating drum: drum_results.csv
[ "${1:-}" = collapse ] && { shift; exec python3 collapse.py "$@"; }  # the column collapse: collapse_results.csv
[ "${1:-}" = slope ] && { shift; exec python3 slope.py "$@"; }  # particles on the slope: slope_results.csv
[ "${1:-}" = clump-heap ] && { shift; exec python3 clump_heap.py "$@"; }  # poured heaps of clumps: clump_heap_results.csv
exec python3 cases.py "$@"
