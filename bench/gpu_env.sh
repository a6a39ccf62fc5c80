# Sourced by bench/gpu.sh and bench/gpu_validate.sh, from the repository's
# root, on a lent GPU machine: unpacks the carried Vulkan loader (.gl, see
# bench/gpu_pack.sh) where the machine lacks it, points the loader at the
# NVIDIA driver, uses the carried jammed cell (.carry/cache) and sets
# $talus to the carried binary (else target/release/talus).
if [ -d .gl ] && ! { ldconfig -p | grep -q libvulkan && ldconfig -p | grep -q libGLdispatch; }; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if ! ldconfig -p | grep libvulkan >/dev/null; then
  echo "no Vulkan loader (libvulkan1): carry .gl, see bench/gpu_pack.sh" >&2
  exit 1
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
# the jammed cell the settled beds tile, when packed (saves ~20 s)
[ -d .carry/cache ] && export TALUS_CACHE_DIR=$PWD/.carry/cache
talus=target/release/talus
[ -x .carry/talus ] && talus=.carry/talus
