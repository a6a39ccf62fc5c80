"""The Python package's overhead: a 10^4-particle scene stepped from Python
in chunks of 100 steps against `talus run` of the same scene (CPU path),
both writing the same run directory. Runs alternate (CLI, Python, CLI, …)
and the medians are compared, side by side in one process' lifetime.

    pip install ./python                     # a release build of the package
    cargo build --release -p talus-cli       # and of the command
    python bench/python_chunks.py [--runs 5] [--steps 2000] [--chunk 100]

Prints each run's wall time, the medians and their ratio (docs/performance.md).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import talus

ROOT = Path(__file__).resolve().parents[1]

SCENE = """
# 10^4 beads of 1 mm radius on a simple cubic lattice, each touching its
# six neighbours, on a floor, periodic across: a bed in contact from the
# first step (as `talus bench`'s mono bed), compressing under gravity
[simulation]
steps = {steps}
dt = 1.0e-5
gravity = [0.0, 0.0, -9.81]
output_interval = 5.0e-3

[domain]
min = [0.0, 0.0, 0.0]
max = [0.06, 0.06, 0.03]
periodic = [true, true, false]

[contact]
model = "hertz_mindlin"

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.5
rolling_friction = 0.01

[[particles]]
generator = "lattice"
region = {{ min = [0.0, 0.0, 0.0], max = [0.06, 0.06, 0.03] }}
radius = 0.001
spacing = 0.002
material = "glass"
count = 10000

[[walls]]
name = "floor"
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--talus", default=str(ROOT / "target" / "release" / "talus"))
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="talus_pybench_"))
    scene = tmp / "bench.toml"
    scene.write_text(SCENE.format(steps=a.steps))
    cli, py = [], []
    for k in range(a.runs):
        t0 = time.perf_counter()
        subprocess.run([a.talus, "run", str(scene), "--backend", "cpu", "--out", str(tmp / "cli"), "--quiet"], check=True)
        cli.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        sim = talus.Simulation(scene, backend="cpu", out=tmp / "py")
        for _ in range(a.steps // a.chunk):
            sim.run(steps=a.chunk)
        sim.run(steps=a.steps - sim.step) if sim.step < a.steps else None
        sim.close()
        py.append(time.perf_counter() - t0)
        print(f"run {k}: talus run {cli[-1]:.3f} s, Python in chunks of {a.chunk}: {py[-1]:.3f} s", flush=True)
    same = all(
        (tmp / "cli" / f).read_bytes() == (tmp / "py" / f).read_bytes()
        for f in ("energy.csv", "final.csv", "particles.pvd")
    )
    mc, mp = statistics.median(cli), statistics.median(py)
    print(f"medians: talus run {mc:.3f} s, Python {mp:.3f} s; ratio {mp / mc:.4f} ({a.runs} runs, 10^4 particles, {a.steps} steps, {os.cpu_count()} cores)")
    print(f"outputs byte-identical: {same}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
