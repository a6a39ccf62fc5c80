#!/bin/sh
# The cost of pouring and of checkpoints (docs/performance.md):
#   A: a box poured full, N particles inserted over the run's S steps;
#   B: the same N particles (A's final state) present from the start, S steps.
# Prints particle-steps/s of both (their ratio is insertion's overhead per
# particle-step) and the checkpoint's size and time scaled to 1e6 particles.
# usage: bench/flow_cost.sh [cpu|gpu] [N] [S]
set -e
BE=${1:-cpu}; N=${2:-100000}; S=${3:-3000}
T=${TALUS:-./target/release/talus}
D=$(mktemp -d)
DT=1e-5
RATE=$(python3 -c "print($N / ($S * $DT) * 1.02)")
cat > $D/pour.toml <<TOML
[simulation]
steps = $S
dt = $DT
output_interval = $(python3 -c "print($S * $DT / 4)")
[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.3]
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.3
[[insert]]
region = { min = [0.001, 0.001, 0.2], max = [0.099, 0.099, 0.29] }
rate = $RATE
count = $N
radius = { min = 0.0009, max = 0.001 }
material = "glass"
velocity = [0.0, 0.0, -3.0]
interval = 0.002
[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"
TOML
$T run $D/pour.toml --backend $BE --out $D/a --quiet
# the same particles from the start
python3 - "$D" <<PY
import sys, re
d = sys.argv[1]
s = open(d + "/pour.toml").read()
a = s.index("[[insert]]"); b = s.index("[[walls]]")
s = s[:a] + "[[particles]]\nfile = \"a/final.csv\"\n\n" + s[b:]
open(d + "/full.toml", "w").write(s)
PY
$T run $D/full.toml --backend $BE --out $D/b --quiet
python3 - "$D" "$BE" <<PY
import json, sys
d, be = sys.argv[1], sys.argv[2]
a = json.load(open(d + "/a/summary.json")); b = json.load(open(d + "/b/summary.json"))
print(f"backend {be} ({a['adapter']}), {a['steps']} steps")
print(f"A poured:  {a['inserted']} inserted over the run, {a['particle_steps_per_second']:.3e} particle-steps/s")
print(f"B present: {b['particles']} from the start,      {b['particle_steps_per_second']:.3e} particle-steps/s")
print(f"A / B throughput: {a['particle_steps_per_second'] / b['particle_steps_per_second']:.3f}")
n = b['particles_end']
print(f"checkpoint of {n} particles: {b['checkpoint_bytes']/2**20:.1f} MiB in {b['checkpoint_seconds']:.3f} s"
      f" -> {b['checkpoint_bytes']/2**20*1e6/n:.0f} MiB and {b['checkpoint_seconds']*1e6/n:.2f} s per 1e6 particles")
PY
rm -rf $D
