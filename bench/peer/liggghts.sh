#!/usr/bin/env bash
# Side by side on one machine, in one run: the talus CPU path and LIGGGHTS 3.8
# on the same bed (same spheres, material, Hertz-Mindlin with history,
# friction, gravity, walls, dt, warm-up and timed steps) and the same cores.
# Prints both Cundall numbers (particle-steps per second, median of 3 timed
# blocks each), their ratio, and how evenly LIGGGHTS' ranks share the bed.
# The export splits LIGGGHTS' domain across x and y only (`processors * *
# 1`): its default split the box along gravity, which left one rank with
# 82 % of the bed and halved LIGGGHTS' speed.
#
#   bench/peer/liggghts.sh [SIZES]      e.g. bench/peer/liggghts.sh 1e4,1e5
#   env: CORES (default: nproc), STEPS (timed steps, 100), WARMUP (200),
#        RUNS (3: the codes alternate, one row per run and size, then the
#        median ratio per size)
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${1:-1e4,1e5}
CORES=${CORES:-$(nproc)}
STEPS=${STEPS:-100}
WARMUP=${WARMUP:-200}
RUNS=${RUNS:-3}

if ! command -v liggghts >/dev/null; then
  echo "installing LIGGGHTS 3.8 (Debian package liggghts)" >&2
  apt-get install -y liggghts >&2
fi
[ -x target/release/talus ] || cargo build --release >&2
TALUS=target/release/talus
work=$(mktemp -d)
mpi=(mpirun -np "$CORES")
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

printf "| run | particles | cores | LIGGGHTS 3.8 particle-steps/s | LIGGGHTS busiest rank / mean | talus CPU particle-steps/s | talus / LIGGGHTS |\n|---:|---:|---:|---:|---:|---:|---:|\n"
ratios="$work/ratios"
for r in $(seq "$RUNS"); do
for n in ${SIZES//,/ }; do
  dir="$work/$n"
  if [ ! -f "$dir/in.bed" ]; then
    "$TALUS" bench --sizes "$n" --export-liggghts "$dir" >/dev/null
    # three timed blocks after the warm-up; LIGGGHTS reports each as a Loop time
    sed -i "s/^run \${steps}$/run \${steps}\nrun \${steps}\nrun \${steps}/" "$dir/in.bed"
    sed -i "s/^run [0-9]*$/run $WARMUP/" "$dir/in.bed"
  fi
  (cd "$dir" && "${mpi[@]}" liggghts -in in.bed -var steps "$STEPS" > liggghts.log 2>&1) \
    || { echo "LIGGGHTS failed, see $dir/liggghts.log" >&2; exit 1; }
  # median rate of the timed blocks, and the spheres on the busiest rank
  # over the mean (1.00: balanced; the export splits across x and y only)
  read -r lig bal < <(python3 - "$dir/liggghts.log" "$STEPS" <<'PY'
import re, statistics, sys
log, steps = open(sys.argv[1]).read(), int(sys.argv[2])
runs = [(float(t), int(s), int(a)) for t, s, a in
        re.findall(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", log)]
timed = [r for r in runs if r[1] == steps][-3:]
ave, mx = map(float, re.findall(r"Nlocal:\s+([0-9.eE+-]+) ave ([0-9.eE+-]+) max", log)[-1])
print(statistics.median(a * s / t for t, s, a in timed), mx / ave)
PY
)
  RAYON_NUM_THREADS=$CORES "$TALUS" bench --backend cpu --beds mono --sizes "$n" \
    --steps "$STEPS" --warmup "$WARMUP" --repeats 3 --json "$dir/talus.json" >/dev/null 2>&1
  tal=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['particle_steps_per_second'])" "$dir/talus.json")
  python3 -c "import sys; r,n,c,l,b,t=sys.argv[1:]; print(f'| {r} | {int(float(n))} | {c} | {float(l):.3e} | {float(b):.2f} | {float(t):.3e} | {float(t)/float(l):.2f} |')" "$r" "$n" "$CORES" "$lig" "$bal" "$tal"
  echo "$n $(python3 -c "import sys; print(float(sys.argv[2])/float(sys.argv[1]))" "$lig" "$tal")" >> "$ratios"
done
done
if [ "$RUNS" -gt 1 ]; then
  python3 - "$ratios" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    n, x = line.split()
    by.setdefault(n, []).append(float(x))
for n, xs in by.items():
    print(f"{int(float(n))} spheres: talus / LIGGGHTS median {statistics.median(xs):.2f} over {len(xs)} runs (range {min(xs):.2f}-{max(xs):.2f})")
PY
fi
echo "(work files in $work)" >&2
