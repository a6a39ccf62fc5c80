#!/usr/bin/env bash
# The `talus validate --full` cases on a lent GPU machine (the `device`
# tool), each under its own time limit, after bench/gpu_pack.sh here:
#
#   device run: carry [".gl", ".carry"], command:
#     bash bench/gpu_validate.sh "40:settle 60:collapse:collapse.only=0.5 150:compaction"
#
# Each word is SECONDS:CASE[:KEY=VALUE[:KEY=VALUE…]], each KEY=VALUE one
# `talus validate --set` (`talus validate --list-options`; a value may be
# a comma-separated list). DEADLINE (seconds, default 540) bounds
# the whole: a case starts only with 20 s or more left, and gets no more
# than what is left. Leaves in $OUT (or .): val.log (each case's exit
# status, time and the end of its table) and validate.tgz (each case's
# report, plots and data, remade after every case so that a call cut
# short keeps what finished). Before the cases, diag.txt: the process's
# file limit and the two diagnostics for a process that opens many
# devices (tests/gpu.rs, `--ignored many_`), when .carry has the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}
t0=$(date +%s)
. bench/gpu_env.sh
if [ -x .carry/gpu_tests ]; then
  {
    echo "ulimit -n: soft $(ulimit -Sn), hard $(ulimit -Hn)"
    TALUS_REQUIRE_GPU=1 timeout 60 .carry/gpu_tests --ignored --test-threads 1 --nocapture many_ 2>&1 |
      grep -E "^context|files open|^test |result|200 "
  } >"$out/diag.txt" 2>&1
  cat "$out/diag.txt"
fi
work=$(mktemp -d)
mkdir -p "$work/val"
for spec in ${1:-}; do
  IFS=: read -r secs case sets <<<"$spec"
  left=$((${DEADLINE:-540} - ($(date +%s) - t0)))
  if [ "$left" -lt 20 ]; then
    echo "== $case: not run, $left s left" | tee -a "$out/val.log"
    continue
  fi
  [ "$secs" -gt "$left" ] && secs=$left
  s=$(date +%s)
  args=()
  IFS=: read -ra kvs <<<"$sets"
  for kv in ${kvs[@]+"${kvs[@]}"}; do args+=(--set "$kv"); done
  timeout --kill-after=5 "$secs" "$talus" validate --cases "$case" --full --backend gpu \
    ${args[@]+"${args[@]}"} --out "$work/val/$case" >"$work/val/$case.log" 2>&1
  rc=$?
  echo "== $case ($sets) exit $rc after $(($(date +%s) - s)) s (limit $secs s)" | tee -a "$out/val.log"
  tail -40 "$work/val/$case.log" >>"$out/val.log"
  tar czf "$out/validate.tgz" -C "$work" val
done
