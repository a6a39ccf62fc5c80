#!/usr/bin/env bash
# talus bench (and the GPU tests) on a lent GPU machine (the `device` tool),
# from binaries built here (x86_64) and the Vulkan loader carried along:
#
#   here:        bench/gpu_pack.sh   (fills .gl and .carry, both git-ignored)
#   device run:  carry [".gl", ".carry"], command:
#                bash bench/gpu.sh 1e5,1e6,4e6,1e7
#
# Leaves in $OUT (or .), seven files (a device call returns eight at
# most): info.txt (nvidia-smi, talus info), gpu_tests.txt (the GPU test
# suites against their CPU twins, on this GPU), bench_gpu.md (the table,
# with per-stage shares from timestamp queries and the copy bandwidth), the
# same for the settled, chute, hopper and discharge beds (bench_gpu_beds.md;
# sizes BED_SIZES, default 1e5,1e6) and the wide size-ratio beds
# (bench_gpu_wide*.md; WIDE_SIZES, 1e6), and every table's JSON in
# bench_gpu_json.tgz.
# Sizes that do not fit are skipped with the reason.
# Without .carry it uses target/release/talus and runs no tests.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-1e5,1e6,4e6,1e7}
out=${OUT:-.}
if [ -d .gl ] && ! { ldconfig -p | grep -q libvulkan && ldconfig -p | grep -q libGLdispatch; }; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if ! ldconfig -p | grep libvulkan >/dev/null; then
  echo "no Vulkan loader (libvulkan1): carry .gl, see the top of this script" >&2
  exit 1
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
# at most 8 files come back from a device call: the JSON go into one
# archive (re-made after each table), nvidia-smi into info.txt
js=$(mktemp -d)
pack_json() { tar czf "$out/bench_gpu_json.tgz" -C "$js" .; }
nvidia-smi > "$out/info.txt" 2>&1 || true
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
talus=target/release/talus
[ -x .carry/talus ] && talus=.carry/talus
"$talus" info | tee -a "$out/info.txt"
if [ -x .carry/gpu_tests ]; then
  # a failing test is reported and the bench still runs
  TALUS_REQUIRE_GPU=1 .carry/gpu_tests --test-threads 1 >"$out/gpu_tests.txt" 2>&1 ||
    echo "GPU tests FAILED: see gpu_tests.txt" >&2
  grep -E "^test result|FAILED|panicked" "$out/gpu_tests.txt" || true
fi
if [ -x .carry/gpu_flow_tests ]; then
  TALUS_REQUIRE_GPU=1 .carry/gpu_flow_tests --test-threads 1 >"$js/gpu_flow_tests.txt" 2>&1 ||
    echo "GPU flow tests FAILED: see gpu_tests.txt" >&2
  cat "$js/gpu_flow_tests.txt" >>"$out/gpu_tests.txt"
  grep -E "^test result|FAILED|panicked" "$js/gpu_flow_tests.txt" || true
fi
"$talus" bench --backend gpu --sizes "$SIZES" --steps 200 --warmup 200 --repeats 3 \
  --json "$js/bench_gpu.json" | tee "$out/bench_gpu.md"
pack_json
# the settled, flowing, hopper and discharging beds (contacts, walls,
# pouring and outlets) at the sizes that fit the call's time
"$talus" bench --backend gpu --sizes "${BED_SIZES:-1e5,1e6}" --steps 200 --warmup 200 --repeats 3 \
  --beds settled,chute,hopper,discharge \
  --json "$js/bench_gpu_beds.json" | tee "$out/bench_gpu_beds.md"
pack_json
# the broad phase's rows: size ratios 1:1 to 1:35, settled and flowing
# (1:35 needs ~4e5 particles or more), beside the uniform grid at 1:10
"$talus" bench --backend gpu --sizes "${WIDE_SIZES:-1e6}" --steps 200 --warmup 200 --repeats 3 \
  --beds wide \
  --json "$js/bench_gpu_wide.json" | tee "$out/bench_gpu_wide.md"
pack_json
"$talus" bench --backend gpu --sizes "${WIDE_SIZES:-1e6}" --steps 200 --warmup 200 --repeats 3 \
  --beds chute-1:10 --grid-levels auto,1 \
  --json "$js/bench_gpu_wide_uniform.json" | tee "$out/bench_gpu_wide_uniform.md"
pack_json
