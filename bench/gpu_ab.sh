#!/usr/bin/env bash
# Two talus binaries side by side on a lent GPU machine (the `device`
# tool): `talus bench` alternated A, B, A, B, ... ROUNDS times, so that the
# card's warm-up and a neighbour's load fall on both; the medians per row
# and their ratio in $OUT/ab.md. With the GPU tests of B first when they
# are carried (.carry/gpu_tests, the engine's tests; see gpu_pack.sh).
#
#   here:        bench/gpu_pack.sh; cp OLD_BINARY .carry/talus_a
#   device run:  carry [".gl", ".carry"], command:
#                bash bench/gpu_ab.sh 1e6,1e7 mono,poly
#
# A is .carry/talus_a, B is .carry/talus (the build gpu_pack.sh made).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-1e6,1e7}
BEDS=${2:-mono,poly}
ROUNDS=${ROUNDS:-2}
out=${OUT:-.}
. bench/gpu_env.sh
a=.carry/talus_a
b=$talus
js=$(mktemp -d)
"$b" info | tee "$out/ab_info.txt"
if [ -x .carry/gpu_tests ]; then
  timeout 120 env TALUS_REQUIRE_GPU=1 .carry/gpu_tests --test-threads 1 gpu:: >"$out/ab_tests.txt" 2>&1 || true
  timeout 60 env TALUS_REQUIRE_GPU=1 .carry/gpu_tests --test-threads 1 gpu_flow:: >>"$out/ab_tests.txt" 2>&1 || true
  grep -E "^test result|FAILED|panicked" "$out/ab_tests.txt" || true
fi
for r in $(seq "$ROUNDS"); do
  for v in a b; do
    bin=$a
    [ $v = b ] && bin=$b
    "$bin" bench --backend gpu --sizes "$SIZES" --beds "$BEDS" --steps 200 --warmup 200 \
      --repeats 3 --json "$js/$v-$r.json" >/dev/null 2>&1 || echo "$v round $r failed" >&2
  done
done
python3 - "$js" >"$out/ab.md" <<'PY'
import glob, json, statistics, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    v = f.split("/")[-1][0]
    for r in json.load(open(f)):
        if not r.get("skipped"):
            rows.setdefault((r["bed"], r["particles"]), {}).setdefault(v, []).append(r["particle_steps_per_second"])
print("| bed | particles | A (median) | B (median) | B/A | runs |")
print("|---|---:|---:|---:|---:|---|")
for (bed, n), d in sorted(rows.items()):
    if "a" in d and "b" in d:
        ma, mb = statistics.median(d["a"]), statistics.median(d["b"])
        print(f"| {bed} | {n} | {ma:.3e} | {mb:.3e} | {mb / ma:.3f} | {len(d['a'])}/{len(d['b'])} |")
PY
cat "$out/ab.md"
