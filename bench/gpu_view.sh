#!/usr/bin/env bash
# The cost of `talus run --view` at ~10^6 particles on the GPU path
# (issue 17): ${SCENE:-bench/view_1e6.toml} run without and with the live view,
# alternating, REPEATS times each. The view draws offscreen
# (--offscreen WxH): the lent GPU machines have no display, and
# the draws from the simulation's buffers are the same as a window's,
# without the present. Needs the Vulkan loader (bench/gpu.sh sets it up).
#
#   device run: carry [".gl", ".carry"], command:
#               bash bench/gpu.sh ... ; bash bench/gpu_view.sh 20000
#
# Leaves $OUT/view.md: one row per run (wall seconds), then the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${1:-20000}
REPEATS=${REPEATS:-3}
SIZE=${SIZE:-1280x800}
out=${OUT:-.}
talus=target/release/talus
[ -x .carry/talus ] && talus=.carry/talus
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
tmp=$(mktemp -d)
run() { # $1: plain|view, $2: repeat
  local t0 t1 dir=$tmp/$1-$2
  t0=$(date +%s.%N)
  if [ "$1" = view ]; then
    "$talus" run ${SCENE:-bench/view_1e6.toml} --backend gpu \
      --steps "$STEPS" --quiet --out "$dir" --view --offscreen "$SIZE"
  else
    "$talus" run ${SCENE:-bench/view_1e6.toml} --backend gpu --steps "$STEPS" --quiet --out "$dir"
  fi
  t1=$(date +%s.%N)
  python3 -c "print(f'| $1 | $2 | {$t1 - $t0:.2f} |')"
}
{
  echo "$("$talus" info | sed -n 1p), $STEPS steps, view $SIZE offscreen"
  echo
  echo "| run | repeat | wall s |"
  echo "|---|---:|---:|"
  for i in $(seq "$REPEATS"); do run plain "$i"; run view "$i"; done
} | tee "$tmp/view.md"
python3 - "$tmp/view.md" <<'PY' | tee -a "$tmp/view.md"
import statistics, sys
rows = [l.split("|") for l in open(sys.argv[1]) if l.startswith("| plain") or l.startswith("| view")]
t = {k: [float(r[3]) for r in rows if r[1].strip() == k] for k in ("plain", "view")}
p, v = statistics.median(t["plain"]), statistics.median(t["view"])
print(f"\nmedian: without {p:.2f} s, with --view {v:.2f} s: cost {100 * (v / p - 1):+.1f} %")
PY
for i in $(seq "$REPEATS"); do
  cmp -s "$tmp/plain-$i/final.csv" "$tmp/view-$i/final.csv" &&
    echo "repeat $i: final.csv the same bytes with and without the view" ||
    echo "repeat $i: final.csv DIFFERS with the view"
done | tee -a "$tmp/view.md"
cp "$tmp/view.md" "$out/view.md"
