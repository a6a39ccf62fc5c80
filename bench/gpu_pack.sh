#!/usr/bin/env bash
# Here, before a device run: packs what bench/gpu.sh needs on the lent GPU
# machine into two folders git ignores. .gl holds the Vulkan loader (Debian
# packages libvulkan1 and glvnd's libglvnd0, libglx0, libgl1, libegl1,
# libopengl0, libgles2, for x86_64: without glvnd the NVIDIA ICD,
# libGLX_nvidia, gives the loader no vkCreateInstance); .carry holds the
# release binary and the engine's test binary (tests/engine.rs: gpu.sh runs
# its GPU modules), stripped (a device call carries 64 MiB at most).
#
#   bench/gpu_pack.sh
#   then one device run: carry [".gl", ".carry"],
#                        command: bash bench/gpu.sh 1e5,1e6,1e7
#   (and bench/gpu_validate.sh for the validation cases' GPU columns)
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
for d in .gl .carry; do
  grep -qx "/$d/" "$exclude" 2>/dev/null || echo "/$d/" >>"$exclude"
done
if ! ls .gl/libvulkan1_*.deb .gl/libglvnd0_*.deb >/dev/null 2>&1; then
  mkdir -p .gl /tmp/amd64/partial
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
  apt-get "${o[@]}" update >&2
  (cd .gl && apt-get "${o[@]}" download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2 >&2)
fi
cargo build --release
# the engine's test binary (the GPU stages against their CPU twins;
# pouring, outlets and checkpoints): name -> path of the newest build
exe() {
  cargo test --release -p talus --test "$1" --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
name = sys.argv[1]
exe = [m["executable"] for m in map(json.loads, sys.stdin)
       if m.get("reason") == "compiler-artifact" and m.get("executable")
       and m["target"]["name"] == name]
print(exe[-1])' "$1"
}
mkdir -p .carry
strip -o .carry/talus target/release/talus
strip -o .carry/gpu_tests "$(exe engine)"
# the jammed cell the settled beds tile, if this machine has made it
# (saves its ~20 s there)
cell=${TALUS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/talus}/jammed-cell-v1-2000-seed1.csv
if [ -f "$cell" ]; then
  mkdir -p .carry/cache
  cp "$cell" .carry/cache/
fi
du -sh .gl .carry
