#!/usr/bin/env bash
# talus bench on a lent GPU machine (the `device` tool), from a release binary
# built elsewhere (x86_64) and Vulkan loaders carried along:
#
#   here, once:  echo /.gl/ >>.git/info/exclude; mkdir -p .gl /tmp/amd64/partial
#                o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#                apt-get $o update; (cd .gl && apt-get $o download libvulkan1)
#                cargo build --release
#   device run:  carry [".gl", "target/release/talus"], command:
#                bash bench/gpu.sh 1e5,1e6,4e6,1e7
#
# Leaves in $OUT (or .): nvidia-smi.txt, info.txt, bench_gpu.md (the table,
# with per-stage shares from timestamp queries and the copy bandwidth) and
# bench_gpu.json. Sizes that do not fit are skipped with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-1e5,1e6,4e6,1e7}
out=${OUT:-.}
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if ! ldconfig -p | grep -q libvulkan; then
  echo "no Vulkan loader (libvulkan1): carry .gl, see the top of this script" >&2
  exit 1
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
target/release/talus info | tee "$out/info.txt"
target/release/talus bench --backend gpu --sizes "$SIZES" --steps 200 --warmup 200 --repeats 3 \
  --json "$out/bench_gpu.json" | tee "$out/bench_gpu.md"
