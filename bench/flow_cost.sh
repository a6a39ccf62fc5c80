#!/bin/sh
# The cost of pouring and of checkpoints (docs/performance.md), on one
# backend, the two runs side by side:
#   A: N particles poured into a tall region over the run's S steps, in
#      10 batches (one every S/10 steps);
#   B: the same N particles in one batch at step 0, from the same region:
#      present from the start, falling the same way.
# Prints both throughputs (particle-steps/s, each counting the particles
# present at each step): their ratio is what pouring costs per
# particle-step; and B's final checkpoint, scaled to 1e6 particles.
# usage: bench/flow_cost.sh [cpu|gpu] [N] [S]
set -e
BE=${1:-cpu}; N=${2:-100000}; S=${3:-2000}
T=${TALUS:-./target/release/talus}
D=$(mktemp -d)
DT=1e-5
scene() { # $1 = batches
python3 - "$N" "$S" "$DT" "$1" <<'PY'
import sys
n, s, dt, k = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
interval = s * dt / k
print(f"""[simulation]
steps = {s}
dt = {dt}
output_interval = {s * dt / 4}
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
region = {{ min = [0.001, 0.001, 0.09], max = [0.099, 0.099, 0.29] }}
rate = {n / interval * 1.0001}
count = {n}
radius = {{ min = 0.0009, max = 0.001 }}
material = "glass"
velocity = [0.0, 0.0, -1.0]
interval = {interval}
[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"
""")
PY
}
scene 10 > $D/poured.toml
scene 1 > $D/present.toml
$T run $D/poured.toml --backend $BE --out $D/a --quiet
$T run $D/present.toml --backend $BE --out $D/b --quiet
python3 - "$D" "$BE" <<PY
import json, sys
d, be = sys.argv[1], sys.argv[2]
a = json.load(open(d + "/a/summary.json")); b = json.load(open(d + "/b/summary.json"))
print(f"backend {be} ({a['adapter']}), {a['steps']} steps")
print(f"A poured in 10 batches: {a['inserted']} particles, {a['particle_steps_per_second']:.3e} particle-steps/s, {a['wall_seconds']:.1f} s")
print(f"B present from step 0:  {b['inserted']} particles, {b['particle_steps_per_second']:.3e} particle-steps/s, {b['wall_seconds']:.1f} s")
print(f"A / B throughput: {a['particle_steps_per_second'] / b['particle_steps_per_second']:.3f}")
n = b['particles_end']
print(f"checkpoint of {n} particles: {b['checkpoint_bytes']/2**20:.1f} MiB in {b['checkpoint_seconds']:.3f} s"
      f" -> {b['checkpoint_bytes']/2**20*1e6/n:.0f} MiB and {b['checkpoint_seconds']*1e6/n:.2f} s per 1e6 particles")
PY
rm -rf $D
