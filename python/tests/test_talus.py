"""The Python package's tests (pytest): every call, every error path, and
a run driven from Python bit-identical to `talus run` of the same scene on
both paths. The `talus` binary is found by TALUS_BIN or under target/
(`cargo build` or `cargo test` builds it); the GPU tests need an adapter
(lavapipe in CI, where TALUS_REQUIRE_GPU=1 makes a missing one a failure).
"""

import filecmp
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import talus

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BOX = HERE / "box.toml"
REQUIRE_GPU = os.environ.get("TALUS_REQUIRE_GPU") == "1"


def talus_bin():
    """The talus command line: TALUS_BIN, else a build under target/."""
    env = os.environ.get("TALUS_BIN")
    cands = [Path(env)] if env else []
    cands += [ROOT / "target" / k / "talus" for k in ("debug", "release")]
    for c in cands:
        if c.is_file():
            return c
    pytest.fail("no talus binary: build it (cargo build) or set TALUS_BIN")


def gpu_or_skip():
    """Skips (or fails, with TALUS_REQUIRE_GPU=1) where no GPU adapter is."""
    try:
        talus.Simulation(BOX, backend="gpu").close()
    except RuntimeError as e:
        if REQUIRE_GPU:
            pytest.fail(f"TALUS_REQUIRE_GPU=1 and no GPU: {e}")
        pytest.skip(f"no GPU adapter: {e}")


def cli_run(scene, out, backend, *extra):
    subprocess.run(
        [str(talus_bin()), "run", str(scene), "--backend", backend, "--out", str(out), "--quiet", *extra],
        check=True,
    )


def same_files(a, b, skip=("summary.json", "checkpoint.bin", ".lock")):
    """Every file of run directory a is in b with the same bytes (the
    summary's wall-clock figures and the checkpoint's header differ)."""
    names = sorted(p.name for p in Path(a).iterdir() if p.name not in skip)
    assert names == sorted(p.name for p in Path(b).iterdir() if p.name not in skip)
    match, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    assert not mismatch and not errors, f"differ: {mismatch} {errors}"
    return names


# --- a Python-driven run is `talus run`, bit for bit ------------------------


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_run_in_chunks_writes_what_talus_run_writes(tmp_path, backend):
    if backend == "gpu":
        gpu_or_skip()
    cli_run(BOX, tmp_path / "cli", backend)
    with talus.Simulation(BOX, backend=backend, out=tmp_path / "py") as sim:
        assert sim.backend == backend
        # cut where no output falls, and on output steps
        for n in (37, 63, 100, 1, 99, 50):
            sim.run(steps=n)
        sim.run(until=400 * sim.dt)
        assert sim.step == 400
        x = sim.positions()
    names = same_files(tmp_path / "cli", tmp_path / "py")
    assert {"energy.csv", "final.csv", "walls.csv", "particles_00004.vtu"} <= set(names)
    # the state read from Python is the state written
    last = talus.read_run(tmp_path / "cli", pandas=False).snapshot(-1)
    assert np.array_equal(last["positions"], x)


def test_a_dict_scene_runs_as_its_file(tmp_path):
    import tomllib

    scene = tomllib.loads(BOX.read_text())
    a = talus.Simulation(scene, backend="cpu")
    b = talus.Simulation(BOX, backend="cpu")
    a.run(steps=120)
    b.run(steps=120)
    assert np.array_equal(a.positions(), b.positions())
    assert np.array_equal(a.spins(), b.spins())
    # numpy values in the dict are taken as their lists and numbers
    scene["walls"][0]["normal"] = np.array([0.0, 0.0, 1.0])
    scene["simulation"]["dt"] = np.float64(2.0e-5)
    c = talus.Simulation(scene, backend="cpu")
    c.run(steps=120)
    assert np.array_equal(c.positions(), b.positions())


def test_resume_continues_bit_for_bit(tmp_path):
    with talus.Simulation(BOX, backend="cpu", out=tmp_path / "straight") as s:
        s.run(steps=250)
    with talus.Simulation(BOX, backend="cpu", out=tmp_path / "cut") as s:
        s.run(steps=130)
    s = talus.Simulation.resume(tmp_path / "cut", backend="auto")
    assert s.step == 130 and s.backend == "cpu"
    s.run(steps=120)
    s.close()
    same_files(tmp_path / "straight", tmp_path / "cut")


def test_a_checkpoint_midway_resumes(tmp_path):
    s = talus.Simulation(BOX, backend="cpu", out=tmp_path / "a")
    s.run(steps=150)
    path = s.checkpoint()
    assert Path(path).name == "checkpoint.bin" and Path(path).is_file()
    s.run(steps=50)
    want = s.positions()
    s.close()
    # a copy of the run directory as it was at the checkpoint goes on
    # from it (the files after it are the run's own)
    r = talus.Simulation.resume(tmp_path / "a")
    assert r.step == 200
    assert np.array_equal(r.positions(), want)


# --- readers -------------------------------------------------------------------


def test_readers_give_numpy_arrays_in_id_order():
    sim = talus.Simulation(BOX, backend="cpu")
    assert len(sim) == 300 and sim.step == 0 and sim.time == 0.0
    sim.run(steps=10)
    assert sim.step == 10 and sim.time == pytest.approx(10 * 2e-5, rel=1e-12)
    ids = sim.ids()
    assert ids.dtype == np.uint32 and np.array_equal(ids, np.sort(ids))
    for name in ("positions", "velocities", "spins"):
        a = getattr(sim, name)()
        assert a.shape == (300, 3) and a.dtype == np.float64, name
    r = sim.radii()
    assert r.shape == (300,) and 0.0009 <= r.min() and r.max() <= 0.0011
    assert list(sim.materials()[:2]) == ["glass", "glass"]
    assert sim.material_names == ["glass"]
    st = sim.state()
    assert np.array_equal(st["positions"], sim.positions())
    assert np.allclose(st["mass"], 2500.0 * 4.0 / 3.0 * np.pi * st["radii"] ** 3, rtol=1e-12)
    # copies: writing to them changes nothing
    x = sim.positions()
    x[:] = 0.0
    assert sim.positions().any()
    # falling under gravity: v_z = -g t before anything touches
    assert np.allclose(sim.velocities()[:, 2], -9.81 * sim.time, rtol=1e-9)
    assert "talus.Simulation(300 particles, step 10" in repr(sim)


def test_energy_is_the_row_the_table_gets(tmp_path):
    sim = talus.Simulation(BOX, backend="cpu", out=tmp_path / "e")
    sim.run(steps=150)  # not an output step: the end row comes at close()
    e = sim.energy()
    sim.close()
    rows = talus.read_run(tmp_path / "e", pandas=False).energy
    assert list(e) == list(rows)
    for k, v in e.items():
        assert rows[k][-1] == v, k
    assert e["t"] == pytest.approx(149 * 2e-5, rel=1e-12)
    assert e["potential"] > 0.0


def test_walls_carry_the_weight_and_move_when_told():
    sim = talus.Simulation(BOX, backend="cpu")
    walls = sim.walls()
    assert [w["name"] for w in walls] == ["floor", "x0", "x1", "y0", "y1", "lid"]
    assert walls[0]["pose"]["rotation"].shape == (3, 3)
    sim.run(until=0.25)
    m = sim.state()["mass"].sum()
    floor = sim.walls()[0]
    # nearly at rest: the beads push the floor down with their weight
    assert floor["force"][2] == pytest.approx(-m * 9.81, rel=0.05)
    t0 = sim.time
    sim.set_wall_motion("lid", velocity=[0.0, 0.0, -0.01])
    sim.run(steps=100)
    lid = sim.walls()[5]["pose"]
    assert lid["velocity"][2] == -0.01
    assert lid["origin"][2] == pytest.approx(-0.01 * (sim.time - t0), rel=1e-6, abs=1e-9)
    down = lid["origin"][2]
    # at rest again, where it stands (not back at the scene's place)
    sim.set_wall_motion(5)
    sim.run(steps=10)
    lid = sim.walls()[5]["pose"]
    assert lid["velocity"][2] == 0.0
    assert lid["origin"][2] == pytest.approx(down, rel=1e-12)
    # and on again, up, from there
    t1 = sim.time
    sim.set_wall_motion("lid", velocity=[0.0, 0.0, 0.02])
    sim.run(steps=50)
    lid = sim.walls()[5]["pose"]
    assert lid["origin"][2] == pytest.approx(down + 0.02 * (sim.time - t1), rel=1e-6)


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_a_stopped_wall_stays_where_it_stopped(backend):
    if backend == "gpu":
        gpu_or_skip()
    sim = talus.Simulation(BOX, backend=backend)
    sim.set_wall_motion("lid", velocity=[0.0, 0.0, -0.05])
    sim.run(steps=100)
    down = sim.walls()[5]["pose"]["origin"][2]
    assert down == pytest.approx(-0.05 * 100 * 2e-5, rel=1e-5)
    sim.set_wall_motion("lid")
    sim.run(steps=30)
    assert sim.walls()[5]["pose"]["origin"][2] == pytest.approx(down, rel=1e-6)
    sim.set_wall_motion("lid", velocity=[0.0, 0.0, 0.05])
    sim.run(steps=100)
    assert sim.walls()[5]["pose"]["origin"][2] == pytest.approx(0.0, abs=1e-9)


def test_read_run_gives_tables_and_snapshots(tmp_path):
    with talus.Simulation(BOX, backend="cpu", out=tmp_path / "r") as sim:
        sim.run(steps=400)
    run = talus.read_run(tmp_path / "r", pandas=False)
    # a snapshot is taken at the step that measured its row
    assert len(run) == 5 and np.allclose(run.times, np.array([0, 101, 201, 301, 400]) * 2e-5)
    assert run.summary["status"] == "ok" and run.summary["steps"] == 400
    assert Path(run.scene_file).name == "box.toml"
    # rows at t = 0, 100, 200, 300 dt and the end's (399 dt)
    assert np.allclose(run.energy["t"], np.array([0, 100, 200, 300, 399]) * 2e-5)
    assert list(run.walls) == ["t", "wall", "fx", "fy", "fz", "tx", "ty", "tz"]
    assert list(run.walls["wall"][:6]) == ["floor", "x0", "x1", "y0", "y1", "lid"]
    assert run.walls["fz"].dtype == np.float64 and run.walls["fz"].shape == (30,)
    assert run.flow["outlet"][0] == "domain" and run.flow["count"].sum() == 0
    assert run.bodies is None and run.bonds is None
    s0 = run.snapshot(0)
    assert s0["positions"].shape == (300, 3) and s0["time"] == 0.0
    assert s0["velocities"].shape == (300, 3) and s0["ids"].shape == (300,)
    assert {"spins", "radii", "materials", "mass", "dissipated_energy"} <= set(s0)
    assert len(run.snapshots) == 5
    with pytest.raises(IndexError, match="snapshot 9: the run has 5"):
        run.snapshot(9)
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    df = talus.read_run(tmp_path / "r").energy
    assert list(df.columns)[0] == "t"


def test_analyze_gives_the_cli_text(tmp_path):
    with talus.Simulation(BOX, backend="cpu", out=tmp_path / "a") as sim:
        sim.run(steps=100)
    text = talus.analyze(tmp_path / "a", "fraction")
    assert "fraction" in text.lower()
    with pytest.raises(ValueError, match="unknown verb"):
        talus.analyze(tmp_path / "a", "porosity")


def test_validate_returns_the_rows():
    rows = talus.validate(backend="cpu", cases=["1"])
    assert rows and all(r["case"] == "1" and r["backend"] == "cpu" for r in rows)
    assert all(r["pass"] for r in rows), rows
    assert {"quantity", "expected", "measured", "error", "tolerance"} <= set(rows[0])
    with pytest.raises(ValueError, match="case ids"):
        talus.validate(cases=["no-such-case"])
    with pytest.raises(ValueError, match="backend"):
        talus.validate(backend="tpu")


# --- Ctrl-C, the GIL -------------------------------------------------------------


def test_ctrl_c_stops_at_a_chunk_and_the_run_goes_on(tmp_path):
    # Python's own Ctrl-C handler, as a terminal has it (a process started
    # in the background, as CI may be, inherits SIGINT ignored)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    sim = talus.Simulation(BOX, backend="cpu", out=tmp_path / "i")
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.run(steps=50_000)  # ~20 s: a Ctrl-C not seen fails, not hangs
    finally:
        signal.signal(signal.SIGINT, old)
    assert time.monotonic() - t0 < 5.0
    stopped = sim.step
    assert 0 < stopped < 50_000
    sim.run(steps=5)
    assert sim.step == stopped + 5
    assert sim.close()["status"] == "ok"


def test_the_gil_is_released_while_running():
    sim = talus.Simulation(BOX, backend="cpu")
    count = [0]
    done = threading.Event()

    def spin():
        while not done.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        sim.run(steps=3000)
    finally:
        done.set()
        t.join()
    assert count[0] > 1000, count


# --- errors: one line, a Python exception -------------------------------------------


def test_bad_scenes_are_one_line_value_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BOX.read_text().replace("density = 2500.0", "density = -1.0"))
    with pytest.raises(ValueError, match=r"bad\.toml:\d+: materials\[0\]\.density"):
        talus.Simulation(bad)
    with pytest.raises(ValueError, match="cannot read scene file"):
        talus.Simulation(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="missing table \\[simulation\\]"):
        talus.Simulation({"domain": {}})
    import tomllib

    scene = tomllib.loads(BOX.read_text())
    scene["materials"][0]["density"] = None
    with pytest.raises(ValueError, match=r"materials\[0\]\.density: expected a number"):
        talus.Simulation(scene)
    with pytest.raises(ValueError, match="expected a scene file's path or a dict"):
        talus.Simulation(42)
    with pytest.raises(ValueError, match='backend: expected "auto", "gpu" or "cpu"'):
        talus.Simulation(BOX, backend="tpu")


def test_bad_calls_are_refused_and_change_nothing(tmp_path):
    sim = talus.Simulation(BOX, backend="cpu")
    with pytest.raises(ValueError, match="give steps or until"):
        sim.run()
    with pytest.raises(ValueError, match="give steps or until"):
        sim.run(steps=1, until=1.0)
    with pytest.raises(ValueError, match="until: expected a finite time"):
        sim.run(until=float("nan"))
    with pytest.raises(ValueError, match=r'wall "roof": no such wall \(the scene\'s: floor, x0'):
        sim.set_wall_motion("roof", velocity=[0, 0, 1])
    with pytest.raises(ValueError, match="wall 9: the scene has 6 walls"):
        sim.set_wall_motion(9)
    with pytest.raises(ValueError, match="velocity: expected three numbers, got 2"):
        sim.set_wall_motion("lid", velocity=[0, 1])
    with pytest.raises(ValueError, match="writes no run directory"):
        sim.checkpoint()
    assert sim.step == 0
    with pytest.raises(ValueError, match="no particles.pvd"):
        talus.read_run(tmp_path)
    with pytest.raises(ValueError, match="checkpoint"):
        talus.Simulation.resume(tmp_path)
    sim.close()
    with pytest.raises(RuntimeError, match="closed"):
        sim.run(steps=1)
    with pytest.raises(RuntimeError, match="closed"):
        sim.insert([[0.01, 0.01, 0.05]], 0.001)
    with pytest.raises(RuntimeError, match="closed"):
        sim.remove([1])
    assert sim.positions().shape == (300, 3)  # still readable


def test_runs_refuse_a_held_folder_and_a_foreign_checkpoint(tmp_path):
    import tomllib

    a = talus.Simulation(BOX, backend="cpu", out=tmp_path / "held")
    with pytest.raises(RuntimeError, match="is writing into this folder"):
        talus.Simulation(BOX, backend="cpu", out=tmp_path / "held")
    a.run(steps=10)
    a.close()
    # the folder is free again once closed
    talus.Simulation(BOX, backend="cpu", out=tmp_path / "held").close()
    # a dict scene's checkpoint names no file: resume needs the scene
    scene = tomllib.loads(BOX.read_text())
    with talus.Simulation(scene, backend="cpu", out=tmp_path / "d") as s:
        s.run(steps=10)
    with pytest.raises(ValueError, match="names no scene file .*: pass scene="):
        talus.Simulation.resume(tmp_path / "d")
    r = talus.Simulation.resume(tmp_path / "d", scene=scene)
    assert r.step == 10
    r.close()
    # another scene than the checkpoint's is refused (force=True takes it)
    other = dict(scene, materials=[dict(scene["materials"][0], friction=0.3)])
    with pytest.raises(ValueError, match="written for scene file .* with other contents"):
        talus.Simulation.resume(tmp_path / "d", scene=other)
    talus.Simulation.resume(tmp_path / "d", scene=other, force=True).close()
    with pytest.raises(ValueError, match="expected \"auto\", \"gpu\" or \"cpu\""):
        talus.Simulation.resume(tmp_path / "d", backend="fast")


def test_a_checkpoint_after_a_wall_edit_resumes_only_by_force(tmp_path):
    with talus.Simulation(BOX, backend="cpu", out=tmp_path / "w") as s:
        s.run(steps=20)
        s.set_wall_motion("lid", velocity=[0.0, 0.0, -0.01])
        s.run(steps=180)
    # walls.pvd goes on through the edit, the lid (wall 5) where it was:
    # snapshots at steps 101 and 200
    for k, steps in ((1, 81), (2, 180)):
        w = talus._talus.read_vtu(str(tmp_path / "w" / f"walls_{k:05}.vtu"))
        lid = w["points"][-4:, 2]
        assert np.allclose(lid, 0.058 - 0.01 * steps * 2e-5, rtol=0, atol=1e-12), (k, lid)
    with pytest.raises(ValueError, match="after the run's walls were edited"):
        talus.Simulation.resume(tmp_path / "w")
    r = talus.Simulation.resume(tmp_path / "w", force=True)
    assert r.step == 200
    r.run(steps=10)
    r.close()


def test_a_blown_up_run_raises_and_keeps_its_last_good_state(tmp_path):
    import tomllib

    scene = tomllib.loads(BOX.read_text())
    # two beads meeting at 100 m/s: the overlap stops the run
    csv = tmp_path / "two.csv"
    csv.write_text(
        "x,y,z,vx,vy,vz,wx,wy,wz,radius,material\n"
        "0.01,0.01,0.01,0,0,50,0,0,0,0.001,glass\n"
        "0.01,0.01,0.0121,0,0,-50,0,0,0,0.001,glass\n"
    )
    scene["particles"] = [{"file": str(csv)}]
    sim = talus.Simulation(scene, backend="cpu", out=tmp_path / "b")
    with pytest.raises(RuntimeError, match="run stopped at"):
        sim.run(steps=100)
    with pytest.raises(RuntimeError, match="failed earlier"):
        sim.run(steps=1)
    summary = sim.close()
    assert summary["status"] == "failed"
    assert (tmp_path / "b" / "final.csv").is_file()


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_insert_and_remove_between_runs(backend):
    if backend == "gpu":
        gpu_or_skip()
    sim = talus.Simulation(BOX, backend=backend)
    sim.run(steps=50)  # falling freely: no contact yet
    e0 = sim.energy()["residual"]
    new = np.array([[0.004, 0.004, 0.052], [0.010, 0.010, 0.052], [0.016, 0.016, 0.052]])
    ids = sim.insert(new, 0.001, material="glass", velocities=[[0.0, 0.0, -0.5]] * 3)
    assert ids.dtype == np.uint32 and list(ids) == [300, 301, 302]
    assert len(sim) == 303
    st = sim.state()
    at = np.searchsorted(st["ids"], ids)
    # the GPU's positions are fixed point: within its resolution
    assert np.allclose(st["positions"][at], new, rtol=0, atol=0 if backend == "cpu" else 1e-9)
    t0 = sim.time
    sim.run(steps=20)
    v = sim.velocities()[np.searchsorted(sim.ids(), ids)]
    assert np.allclose(v[:, 2], -0.5 - 9.81 * (sim.time - t0), rtol=1e-5)
    # the balance counts them as brought in: no jump in the residual
    assert abs(sim.energy()["residual"] - e0) < 1e-9
    gone = sim.remove([0, 5, 301])
    assert gone == 3 and len(sim) == 300
    assert not np.isin([0, 5, 301], sim.ids()).any()
    sim.run(steps=20)
    assert abs(sim.energy()["residual"] - e0) < 1e-9
    with pytest.raises(ValueError, match="no particle 999999 is present"):
        sim.remove([999999, 1])
    assert len(sim) == 300


def test_insert_refuses_what_would_be_wrong():
    sim = talus.Simulation(BOX, backend="cpu")
    x0 = sim.positions()[0]
    with pytest.raises(ValueError, match="particle 0 at .* overlaps"):
        sim.insert([x0], 0.001)
    with pytest.raises(ValueError, match="particle 1 at .* overlaps"):
        sim.insert([[0.01, 0.01, 0.05], [0.0105, 0.01, 0.05]], 0.001)
    with pytest.raises(ValueError, match="particle 0: position .* outside the domain"):
        sim.insert([[0.01, 0.01, 0.07]], 0.001)
    with pytest.raises(ValueError, match="particle 0: radius -0.001"):
        sim.insert([[0.01, 0.01, 0.05]], -0.001, check_overlap=False)
    with pytest.raises(ValueError, match=r'material "steel": no such material \(the scene\'s: glass\)'):
        sim.insert([[0.01, 0.01, 0.05]], 0.001, material="steel")
    with pytest.raises(ValueError, match=r"positions: expected an \(n, 3\) array of numbers, got shape \[2, 2\]"):
        sim.insert([[0.01, 0.01], [0.02, 0.02]], 0.001)
    with pytest.raises(ValueError, match=r"radii: expected 2 radii \(one per position\) or one, got shape \[3\]"):
        sim.insert([[0.01, 0.01, 0.05], [0.005, 0.005, 0.05]], [0.001] * 3)
    with pytest.raises(ValueError, match=r"velocities: expected an \(n, 3\) array of numbers with n = 1"):
        sim.insert([[0.01, 0.01, 0.05]], 0.001, velocities=[[0, 0, 1], [0, 0, 1]])
    assert len(sim) == 300


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_forces_balance_the_walls_loads(backend):
    if backend == "gpu":
        gpu_or_skip()
    sim = talus.Simulation(BOX, backend=backend)
    assert sim.forces().shape == (300, 3) and not sim.forces().any()
    sim.run(until=0.1)
    f, t = sim.forces(), sim.torques()
    assert f.shape == (300, 3) and t.shape == (300, 3) and np.abs(f).max() > 0
    # pair forces cancel: what the particles feel in all is what the
    # walls feel, reversed
    walls = sum(w["force"] for w in sim.walls())
    scale = np.abs(f).sum()
    tol = 1e-9 if backend == "cpu" else 1e-4
    assert np.allclose(f.sum(axis=0), -walls, atol=tol * scale), (f.sum(axis=0), walls)


def test_gpu_readers_match_the_state_written(tmp_path):
    gpu_or_skip()
    with talus.Simulation(BOX, backend="gpu", out=tmp_path / "g") as sim:
        sim.run(steps=100)
        x, e = sim.positions(), sim.energy()
        assert sim.backend == "gpu" and e["potential"] > 0
    last = talus.read_run(tmp_path / "g", pandas=False).snapshot(-1)
    assert np.array_equal(last["positions"], x)


def test_the_type_hints_name_what_the_module_has():
    import ast

    stub = ast.parse((ROOT / "python" / "talus" / "_talus.pyi").read_text())
    top = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    native = {k for k in dir(talus._talus) if not k.startswith("_")}
    assert top == native, top ^ native
    cls = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Simulation")
    hinted = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    have = {k for k in dir(talus.Simulation) if not k.startswith("_")} | {"__init__", "__len__", "__enter__", "__exit__"}
    assert hinted == have, hinted ^ have

