"""The examples of docs/python.md run as a user runs them, each checking
its own result (a calibration that misses its target, or layer fractions
that disagree with `talus analyze`, exit non-zero)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_example(name, *args):
    r = subprocess.run(
        [sys.executable, str(ROOT / "python" / "examples" / name), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, f"{name} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def test_calibrating_rolling_friction_reaches_its_target():
    out = run_example("calibrate_rolling.py")
    assert "within" in out and "of the target" in out, out


def test_layers_in_numpy_agree_with_talus_analyze(tmp_path):
    out = run_example("layers.py", "--out", str(tmp_path / "run"))
    assert "agree" in out, out
