#!/usr/bin/env bash
# talus bench (and the GPU tests) on a lent GPU machine (the `device` tool),
# from binaries built here (x86_64) and the Vulkan loader carried along:
#
#   here:        bench/gpu_pack.sh   (fills .gl and .carry, both git-ignored)
#   device run:  carry [".gl", ".carry"], command:
#                bash bench/gpu.sh 1e5,1e6,1e7
#
# Leaves in $OUT (or .), at most eight files (what a device call
# returns): info.txt (nvidia-smi, talus info), gpu_tests.txt (the GPU test
# suites against their CPU twins, on this GPU), bench_gpu.md (the table,
# with per-stage shares from timestamp queries and the copy bandwidth), the
# same for the settled, chute, hopper, discharge and clumps beds (bench_gpu_beds.md;
# sizes BED_SIZES, default 1e5,1e6), settled and chute with each pair from
# both sides (bench_gpu_both.md), the wide size-ratio beds
# (bench_gpu_wide*.md; WIDE_SIZES, 1e6; the uniform-grid one only with
# UNIFORM_S set), and every table's JSON in bench_gpu_json.tgz.
# Sizes that do not fit are skipped with the reason. Each part runs under a
# time limit (TESTS_S, BENCH_S, BEDS_S, PAIRS_S, WIDE_S, UNIFORM_S seconds, 0 to
# skip; by
# default 570 s in all, ~300 s used on an H200 with 1e5,1e6,1e7) so the
# whole stays inside one device call's 600 s.
# Without .carry it uses target/release/talus and runs no tests.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-1e5,1e6,4e6,1e7}
out=${OUT:-.}
. bench/gpu_env.sh
# at most 8 files come back from a device call: the JSON go into one
# archive (re-made after each table), nvidia-smi into info.txt
js=$(mktemp -d)
pack_json() { tar czf "$out/bench_gpu_json.tgz" -C "$js" .; }
nvidia-smi > "$out/info.txt" 2>&1 || true
"$talus" info | tee -a "$out/info.txt"
# each part under its own time limit (seconds), so that one slow
# part leaves the others their share of a device call's 10 minutes; a part
# cut short says so and keeps the rows it printed
part() {
  local secs=$1
  shift
  # a limit of 0 skips the part (timeout 0 would mean no limit)
  if [ "$secs" = 0 ]; then
    echo "$* skipped (limit 0)" >&2
    return 0
  fi
  timeout --kill-after=10 "$secs" "$@" || echo "$* stopped after ${secs} s or failed (exit $?)" >&2
}
if [ -x .carry/gpu_tests ]; then
  # how many instances and contexts one process may make, one after another
  # (a test process on an H100 once found no adapter after ~100)
  part 45 env TALUS_REQUIRE_GPU=1 .carry/gpu_tests --ignored --test-threads 1 \
    many_fresh_instances_in_one_process many_contexts_in_one_process >"$out/gpu_tests.txt" 2>&1
  grep -E "^test |^test result|panicked|fresh instances|contexts," "$out/gpu_tests.txt" || true
  # a failing test is reported and the bench still runs
  # (the engine's test binary: its modules gpu:: and gpu_flow::)
  part "${TESTS_S:-100}" env TALUS_REQUIRE_GPU=1 .carry/gpu_tests --test-threads 1 gpu:: >>"$out/gpu_tests.txt" 2>&1
  grep -E "^test result|FAILED|panicked" "$out/gpu_tests.txt" || true
  part 45 env TALUS_REQUIRE_GPU=1 .carry/gpu_tests --test-threads 1 gpu_flow:: gpu_clumps:: >"$js/gpu_flow_tests.txt" 2>&1
  cat "$js/gpu_flow_tests.txt" >>"$out/gpu_tests.txt"
  grep -E "^test result|FAILED|panicked" "$js/gpu_flow_tests.txt" || true
fi
bench() {
  local secs=$1 name=$2
  shift 2
  [ "$secs" = 0 ] && return 0
  part "$secs" "$talus" bench --backend gpu --steps 200 --warmup 200 --repeats 3 \
    --json "$js/$name.json" "$@" | tee "$out/$name.md"
  pack_json
}
bench "${BENCH_S:-150}" bench_gpu --sizes "$SIZES"
# the settled, flowing, hopper and discharging beds (contacts, walls,
# pouring and outlets) at the sizes that fit the call's time, and the
# 4-sphere clumps last (issue 37's cost row; cut short first)
bench "${BEDS_S:-90}" bench_gpu_beds --sizes "${BED_SIZES:-1e5,1e6}" \
  --beds settled,chute,hopper,discharge,clumps
# each pair from both sides (a gather, no atomics), against the beds
# above, which a GPU runs each pair once: which is faster on this card
# decides the default (gpu::context::Pairs)
export TALUS_GPU_PAIRS=both
bench "${PAIRS_S:-80}" bench_gpu_both --sizes "${BED_SIZES:-1e5,1e6}" --beds settled,chute
unset TALUS_GPU_PAIRS
# the broad phase's rows: size ratios 1:1 to 1:35, settled and flowing
# (1:35 needs ~4e5 particles or more), beside the uniform grid at 1:10
bench "${WIDE_S:-60}" bench_gpu_wide --sizes "${WIDE_SIZES:-1e6}" --beds wide
bench "${UNIFORM_S:-0}" bench_gpu_wide_uniform --sizes "${WIDE_SIZES:-1e6}" \
  --beds chute-1:10 --grid-levels auto,1
