"""talus from Python: a DEM simulator for granular materials (GPU through
wgpu, an f64 CPU reference path), scripted with numpy.

    import talus
    sim = talus.Simulation("scenes/settle.toml", backend="auto", out="out/settle")
    sim.run(steps=1000)              # or until=0.2 (s)
    x = sim.positions()              # numpy float64 (n, 3), in id order
    sim.close()                      # final.csv, summary.json (also: `with`)
    run = talus.read_run("out/settle")

Everything runs in the same library as the `talus` command (no second
implementation): a run driven from Python writes the files `talus run`
writes, bit for bit. See docs/python.md.
"""

import json
import os
from pathlib import Path

import numpy as np

from . import _talus
from ._talus import Simulation, __version__, analyze, validate

__all__ = ["Simulation", "Run", "read_run", "validate", "analyze", "__version__"]

# the tables a run directory may hold, by attribute
_TABLES = {
    "energy": "energy.csv",
    "walls": "walls.csv",
    "flow": "flow.csv",
    "bodies": "bodies.csv",
    "bonds": "bonds.csv",
}


# a snapshot's arrays (as ParaView shows them) by the readers' names
_SNAPSHOT_NAMES = {
    "points": "positions",
    "velocity": "velocities",
    "angular_velocity": "spins",
    "radius": "radii",
    "id": "ids",
    "material": "materials",
}


def _frame(columns, as_pandas):
    """A table's columns as a dict of numpy arrays, or a DataFrame."""
    cols = {k: (v if isinstance(v, np.ndarray) else np.array(v)) for k, v in columns.items()}
    if as_pandas:
        import pandas

        return pandas.DataFrame(cols)
    return cols


class Run:
    """A run directory read back (what `talus run` or a Simulation with
    `out` wrote).

    Attributes:
        path: the directory.
        times: float64 (k,), the snapshots' times (s).
        summary: summary.json as a dict (None while a run is going).
        scene_file: the scene file the run loaded (None: a dict scene).
        energy, walls, flow, bodies, bonds: the tables, each a dict of
            numpy arrays (a pandas DataFrame when pandas is installed and
            `pandas` was not False), None where the run wrote none.
    """

    def __init__(self, path, pandas=None):
        self.path = Path(path)
        files = _talus.run_files(os.fspath(path))
        self.times = np.array([t for t, _ in files["particles"]], dtype=float)
        self._files = [f for _, f in files["particles"]]
        self._bonds = [f for _, f in files["bonds"]]
        self.summary = json.loads(files["summary"]) if files["summary"] else None
        sf = files["scene_file"]
        self.scene_file = os.path.abspath(sf) if sf else None
        if pandas is None:
            try:
                import pandas as _  # noqa: F401

                pandas = True
            except ImportError:
                pandas = False
        for attr, name in _TABLES.items():
            p = self.path / name
            table = _frame(_talus.read_table(os.fspath(p)), pandas) if p.is_file() else None
            setattr(self, attr, table)

    def __len__(self):
        return len(self._files)

    def __repr__(self):
        return f"talus.Run({str(self.path)!r}, {len(self)} snapshots, t = {self.times[0]:.4e} .. {self.times[-1]:.4e} s)"

    def snapshot(self, k=-1):
        """Snapshot k (negative: from the end) as a dict of numpy arrays,
        named as a Simulation's readers: positions (n, 3), velocities,
        spins, radii, ids, materials (indices into the scene's
        materials), mass, dissipated_energy (and shape, orientation for
        clumps), one row per sphere in id order; and its time."""
        n = len(self._files)
        if not -n <= k < n:
            raise IndexError(f"snapshot {k}: the run has {n} snapshots")
        k %= n
        d = _talus.read_vtu(os.fspath(self.path / self._files[k]))
        d = {_SNAPSHOT_NAMES.get(name, name): a for name, a in d.items()}
        d["time"] = float(self.times[k])
        return d

    @property
    def snapshots(self):
        """Every snapshot (each read from its file now)."""
        return [self.snapshot(k) for k in range(len(self))]

    def bonds_snapshot(self, k=-1):
        """Bonds snapshot k (a run with [[bonds]]): the cell arrays
        (cell:ids, cell:normal_force, …) and the points."""
        if not self._bonds:
            raise ValueError(f"{self.path}: the run wrote no bonds.pvd")
        return _talus.read_vtu(os.fspath(self.path / self._bonds[k]))


def read_run(path, pandas=None):
    """The run directory `path` read back: a `Run` (snapshots as numpy
    arrays on demand, tables as dicts of arrays or pandas DataFrames)."""
    return Run(path, pandas=pandas)
