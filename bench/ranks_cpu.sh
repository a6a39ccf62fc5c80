#!/usr/bin/env bash
# Strong and weak scaling of the CPU path on MPI ranks (docs/performance.md,
# "Runs on several ranks"): scenes/settle.toml (4000 beads) and a copy twice
# as wide (8000 beads), STEPS steps each, ROUNDS rounds alternated; prints
# each run's wall_seconds (summary.json) and the medians.
#   cargo build --release --features mpi && bench/ranks_cpu.sh [ROUNDS] [STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
steps=${2:-6000}
bin=${TALUS:-target/release/talus}
tmp=$(mktemp -d)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the 8000-bead copy: domain, lattice and the x1 wall to x = 0.08 m
sed -e 's/max = \[0.04, 0.04, 0.12\]/max = [0.08, 0.04, 0.12]/' \
    -e 's/count = 4000/count = 8000/' \
    -e 's/point = \[0.04, 0.0, 0.0\]/point = [0.08, 0.0, 0.0]/' \
    scenes/settle.toml > "$tmp/settle8k.toml"
cp scenes/settle.toml "$tmp/settle4k.toml"
run() { # name, threads, ranks, overlap, scene
    local out="$tmp/out" cmd=("$bin" run "$tmp/$5.toml" --backend cpu --steps "$steps" --out "$tmp/out" --quiet)
    rm -rf "$out"
    if [ "$3" = 1 ]; then
        RAYON_NUM_THREADS=$2 "${cmd[@]}" > /dev/null
    else
        TALUS_MPI_OVERLAP=$4 RAYON_NUM_THREADS=$2 mpirun --bind-to none -np "$3" "${cmd[@]}" > /dev/null
    fi
    python3 -c "import json,sys; print(sys.argv[1], json.load(open(sys.argv[2]))['wall_seconds'])" "$1" "$out/summary.json" | tee -a "$tmp/times"
}
for r in $(seq "$rounds"); do
    run "4000,serial,1-thread" 1 1 0 settle4k
    run "4000,serial,2-threads" 2 1 0 settle4k
    run "4000,2-ranks" 1 2 0 settle4k
    run "4000,2-ranks,overlap" 1 2 1 settle4k
    run "8000,serial,1-thread" 1 1 0 settle8k
    run "8000,2-ranks" 1 2 0 settle8k
done
python3 - "$tmp/times" <<'PY'
import sys, statistics, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v = line.split()
    t[k].append(float(v))
print("| run | median s | range s |")
print("|-----|---------:|--------:|")
for k, v in t.items():
    print(f"| {k.replace(',', ', ')} | {statistics.median(v):.2f} | {min(v):.2f}–{max(v):.2f} |")
PY
rm -rf "$tmp"
