#!/usr/bin/env bash
# Side by side on one machine, in one run: the talus CPU path and LIGGGHTS 3.8
# on the same bed (same spheres, material, Hertz-Mindlin with history,
# friction, gravity, walls, dt, warm-up and timed steps) and the same cores.
# Prints both Cundall numbers (particle-steps per second, median of 3 timed
# blocks each) and their ratio. The export splits LIGGGHTS' domain across x
# and y only (`processors * * 1`): its default split the box along gravity,
# which left one rank with 82 % of the bed and halved LIGGGHTS' speed.
#
#   bench/peer/liggghts.sh [SIZES]      e.g. bench/peer/liggghts.sh 1e4,1e5
#   env: CORES (default: nproc), STEPS (timed steps, 100), WARMUP (200)
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${1:-1e4,1e5}
CORES=${CORES:-$(nproc)}
STEPS=${STEPS:-100}
WARMUP=${WARMUP:-200}

if ! command -v liggghts >/dev/null; then
  echo "installing LIGGGHTS 3.8 (Debian package liggghts)" >&2
  apt-get install -y liggghts >&2
fi
[ -x target/release/talus ] || cargo build --release >&2
TALUS=target/release/talus
work=$(mktemp -d)
mpi=(mpirun -np "$CORES")
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

printf "| particles | cores | LIGGGHTS 3.8 particle-steps/s | talus CPU particle-steps/s | talus / LIGGGHTS |\n|---:|---:|---:|---:|---:|\n"
for n in ${SIZES//,/ }; do
  dir="$work/$n"
  "$TALUS" bench --sizes "$n" --export-liggghts "$dir" >/dev/null
  # three timed blocks after the warm-up; LIGGGHTS reports each as a Loop time
  sed -i "s/^run \${steps}$/run \${steps}\nrun \${steps}\nrun \${steps}/" "$dir/in.bed"
  sed -i "s/^run [0-9]*$/run $WARMUP/" "$dir/in.bed"
  (cd "$dir" && "${mpi[@]}" liggghts -in in.bed -var steps "$STEPS" > liggghts.log 2>&1) \
    || { echo "LIGGGHTS failed, see $dir/liggghts.log" >&2; exit 1; }
  lig=$(python3 - "$dir/liggghts.log" "$STEPS" <<'PY'
import re, statistics, sys
log, steps = open(sys.argv[1]).read(), int(sys.argv[2])
runs = [(float(t), int(s), int(a)) for t, s, a in
        re.findall(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", log)]
timed = [r for r in runs if r[1] == steps][-3:]
print(statistics.median(a * s / t for t, s, a in timed))
PY
)
  RAYON_NUM_THREADS=$CORES "$TALUS" bench --backend cpu --beds mono --sizes "$n" \
    --steps "$STEPS" --warmup "$WARMUP" --repeats 3 --json "$dir/talus.json" >/dev/null 2>&1
  tal=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['particle_steps_per_second'])" "$dir/talus.json")
  python3 -c "import sys; n,c,l,t=sys.argv[1:]; print(f'| {int(float(n))} | {c} | {float(l):.3e} | {float(t):.3e} | {float(t)/float(l):.2f} |')" "$n" "$CORES" "$lig" "$tal"
done
echo "(work files in $work)" >&2
