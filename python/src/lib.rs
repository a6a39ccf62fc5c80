//! `talus._talus`: the Python package's native module, a thin layer over
//! the engine's public API. Everything a call does is the library's
//! (`talus::run::Simulation` advanced by a `talus::run::Driver` that
//! writes the run directory, the backend opened by `talus::run::open`);
//! this file only converts: Python objects and numpy arrays in, numpy
//! arrays, dicts and one-line exceptions out.
//!
//! Costs: every reader (`positions()`, `state()`, `walls()`, …) copies its
//! data out in one transfer (one read-back from a GPU), never per
//! particle; `run()` releases the GIL and looks for Ctrl-C between chunks
//! of ~0.1 s.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use talus::backend::Backend;
use talus::run::{self, open, AnyBackend, Driver, Halt, Pace, Quiet, RunConfig};
use talus::scene::{Scene, WallMotion};
use talus::setup::Setup;
use talus::state::Particles;

fn value_error(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

fn runtime_error(msg: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(msg.to_string())
}

/// A pointer handed into the closure that runs without the GIL. Sound
/// because the class is `unsendable` (only its creating thread touches
/// it), that thread runs the closure, and the `&mut self` borrow held
/// meanwhile keeps every other caller out.
struct Unshared<T>(*mut T);
unsafe impl<T> Send for Unshared<T> {}
impl<T> Unshared<T> {
    /// # Safety
    /// See the type: the pointee is alive and borrowed by nothing else.
    unsafe fn get<'a>(&self) -> &'a mut T {
        unsafe { &mut *self.0 }
    }
}

/// A Python value as TOML (a scene given as a dict), `key` naming it in
/// errors. Arrays with `tolist` (numpy) are taken as lists.
fn to_toml(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(v.extract().map_err(|_| {
            value_error(format!(
                "scene: {key}: an integer out of TOML's 64-bit range"
            ))
        })?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let name: String = k
                .extract()
                .map_err(|_| value_error(format!("scene: {key}: expected text keys, got {k}")))?;
            let sub = if key.is_empty() {
                name.clone()
            } else {
                format!("{key}.{name}")
            };
            t.insert(name, to_toml(&x, &sub)?);
        }
        return Ok(toml::Value::Table(t));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut a = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            a.push(to_toml(&x?, &format!("{key}[{i}]"))?);
        }
        return Ok(toml::Value::Array(a));
    }
    if v.hasattr("tolist")? {
        return to_toml(&v.call_method0("tolist")?, key);
    }
    // numpy scalars (float64, int64) have `item`
    if v.hasattr("item")? {
        return to_toml(&v.call_method0("item")?, key);
    }
    let what = v.get_type().name()?.to_string();
    Err(value_error(format!(
        "scene: {key}: expected a number, text, bool, list or dict, got {what}"
    )))
}

/// A scene given as a path (str or os.PathLike) or as a dict with the
/// TOML's structure: the scene and the hash a checkpoint records.
fn load_scene(scene: &Bound<'_, PyAny>) -> PyResult<(Scene, String)> {
    if let Ok(d) = scene.cast::<PyDict>() {
        let toml::Value::Table(t) = to_toml(d.as_any(), "")? else {
            unreachable!("a dict converts to a table")
        };
        let text = toml::to_string(&t).map_err(|e| value_error(format!("scene: {e}")))?;
        let parsed = Scene::from_text(&text, None).map_err(value_error)?;
        return Ok((parsed, talus::checkpoint::scene_hash(text.as_bytes())));
    }
    let path: PathBuf = scene.extract().map_err(|_| {
        value_error(format!(
            "scene: expected a scene file's path or a dict, got {}",
            scene
                .get_type()
                .name()
                .map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let parsed = Scene::load(&path).map_err(value_error)?;
    let hash = open::file_hash(&path).map_err(value_error)?;
    Ok((parsed, hash))
}

/// The scene's warnings as Python warnings.
fn warn(py: Python<'_>, scene: &Scene) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    for w in scene.warnings() {
        let msg = std::ffi::CString::new(w.to_string()).unwrap_or_default();
        PyErr::warn(py, category.as_any(), &msg, 2)?;
    }
    Ok(())
}

/// `n × 3` from the first three of each row.
fn rows3<'py>(py: Python<'py>, v: &[[f64; 4]]) -> Bound<'py, PyAny> {
    let flat: Vec<f64> = v.iter().flat_map(|r| [r[0], r[1], r[2]]).collect();
    Array2::from_shape_vec((v.len(), 3), flat)
        .expect("n × 3")
        .into_pyarray(py)
        .into_any()
}

fn array1<'py, T: numpy::Element>(py: Python<'py>, v: Vec<T>) -> Bound<'py, PyAny> {
    PyArray1::from_vec(py, v).into_any()
}

/// A 3-vector argument (a list, tuple or numpy array of three numbers).
fn vec3(v: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<[f64; 3]>> {
    let Some(v) = v else { return Ok(None) };
    let xs: Vec<f64> = v
        .extract()
        .or_else(|_| v.call_method0("tolist").and_then(|l| l.extract()))
        .map_err(|_| value_error(format!("{name}: expected three numbers")))?;
    <[f64; 3]>::try_from(xs.as_slice())
        .map(Some)
        .map_err(|_| value_error(format!("{name}: expected three numbers, got {}", xs.len())))
}

/// An `(n, 3)` array argument (anything numpy takes) as rows, `n` checked
/// when given; errors name the argument.
fn rows_of(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    name: &str,
    n: Option<usize>,
) -> PyResult<Vec<[f64; 3]>> {
    let bad = |what: String| {
        value_error(format!(
            "insert(): {name}: expected an (n, 3) array of numbers{what}"
        ))
    };
    let a = py
        .import("numpy")?
        .call_method1("asarray", (v, "float64"))
        .map_err(|_| bad(String::new()))?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    let ok = shape.len() == 2 && shape[1] == 3 && n.is_none_or(|n| shape[0] == n);
    if !ok {
        let want = n.map_or(String::new(), |n| format!(" with n = {n}"));
        return Err(bad(format!("{want}, got shape {shape:?}")));
    }
    a.call_method0("tolist")?.extract()
}

/// Radii: one per particle (`k`), or one for all.
fn radii_of(py: Python<'_>, v: &Bound<'_, PyAny>, k: usize) -> PyResult<Vec<f64>> {
    let a = py
        .import("numpy")?
        .call_method1("asarray", (v, "float64"))
        .map_err(|_| value_error("insert(): radii: expected numbers"))?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    match shape.as_slice() {
        [] => Ok(vec![a.extract()?; k]),
        [n] if *n == k => a.call_method0("tolist")?.extract(),
        _ => Err(value_error(format!(
            "insert(): radii: expected {k} radii (one per position) or one, got shape {shape:?}"
        ))),
    }
}

/// How an advance ended, from the closure that ran it without the GIL.
enum Ended {
    Done,
    Failed(String),
    Io(String),
}

/// A scene on the CPU or GPU path, advanced from Python and read between
/// advances. With `out`, it writes the run directory exactly as `talus
/// run` does (tables, snapshots, checkpoints; `final.csv` and
/// `summary.json` at `close()`); without, nothing.
#[pyclass(unsendable, module = "talus")]
pub struct Simulation {
    sim: run::Simulation<AnyBackend>,
    driver: Option<Driver<'static, 'static>>,
    out: Option<PathBuf>,
    pace: Pace,
    /// Why the run stopped for good (it blew up): it advances no further.
    failed: Option<String>,
    closed: bool,
}

impl Simulation {
    fn start(
        setup: Setup,
        backend: AnyBackend,
        out: Option<PathBuf>,
        hash: String,
        resume: Option<talus::checkpoint::DriverState>,
    ) -> PyResult<Simulation> {
        let setup = Arc::new(setup);
        let mut sim = match &resume {
            Some(d) => run::Simulation::resume(setup.clone(), backend, d),
            None => run::Simulation::new(setup.clone(), backend),
        };
        let driver = match &out {
            Some(dir) => {
                let mut cfg = RunConfig::new(&setup, dir.clone(), u64::MAX);
                cfg.scene_hash = hash;
                cfg.resume = resume;
                Some(Driver::open(&mut sim, cfg, None, &mut Quiet).map_err(runtime_error)?)
            }
            None => None,
        };
        Ok(Simulation {
            sim,
            driver,
            out,
            pace: Pace::default(),
            failed: None,
            closed: false,
        })
    }

    fn particles(&mut self) -> Particles<f64> {
        self.sim.particles()
    }

    /// Each particle's force (`which` 0) or torque (1) at the last step,
    /// (n, 3) in id order.
    fn loads<'py>(&mut self, py: Python<'py>, which: usize) -> PyResult<Bound<'py, PyAny>> {
        let f = self.sim.forces().map_err(runtime_error)?;
        let flat: Vec<f64> = f.iter().flat_map(|r| r[which]).collect();
        Ok(Array2::from_shape_vec((f.len(), 3), flat)
            .expect("n × 3")
            .into_pyarray(py)
            .into_any())
    }

    fn wall_index(&self, wall: &Bound<'_, PyAny>) -> PyResult<usize> {
        let walls = &self.sim.scene().walls;
        if let Ok(k) = wall.extract::<usize>() {
            if k < walls.len() {
                return Ok(k);
            }
            return Err(value_error(format!(
                "wall {k}: the scene has {} walls",
                walls.len()
            )));
        }
        let name: String = wall
            .extract()
            .map_err(|_| value_error("wall: expected a wall's name or index"))?;
        walls
            .iter()
            .enumerate()
            .position(|(i, w)| w.label(i) == name)
            .ok_or_else(|| {
                let names: Vec<String> =
                    walls.iter().enumerate().map(|(i, w)| w.label(i)).collect();
                value_error(format!(
                    "wall \"{name}\": no such wall (the scene's: {})",
                    names.join(", ")
                ))
            })
    }

    /// Ends the run directory (row and snapshot of the last step,
    /// checkpoint, final.csv, summary.json): the summary's JSON.
    fn finish(&mut self) -> Result<Option<String>, String> {
        self.closed = true;
        let Some(d) = self.driver.take() else {
            return Ok(None);
        };
        let summary = d.finish(&mut self.sim, &mut Quiet, 0);
        let s = match summary {
            Ok(s) => s,
            Err(run::RunFailure::Blowup(_, s)) => *s,
            Err(e) => return Err(e.to_string()),
        };
        Ok(Some(serde_json::to_string(&s).expect("summary serialises")))
    }
}

#[pymethods]
impl Simulation {
    /// `Simulation(scene, backend="auto", out=None, adapter=None)`: `scene`
    /// a scene file's path or a dict with the TOML's structure; `backend`
    /// "auto" (a hardware GPU, else the CPU), "gpu" or "cpu"; `out` the run
    /// directory to write as `talus run` does (None: no files); `adapter`
    /// part of a GPU adapter's name.
    #[new]
    #[pyo3(signature = (scene, backend = "auto", out = None, adapter = None))]
    fn new(
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        backend: &str,
        out: Option<PathBuf>,
        adapter: Option<&str>,
    ) -> PyResult<Simulation> {
        let choice = open::Choice::parse(backend).map_err(value_error)?;
        let (scene, hash) = load_scene(scene)?;
        warn(py, &scene)?;
        let setup = Setup::new(scene).map_err(value_error)?;
        let (b, _) = open::open_backend(choice, adapter, &setup, None).map_err(runtime_error)?;
        Simulation::start(setup, b, out, hash, None)
    }

    /// `Simulation.resume(out, backend="auto", scene=None, force=False)`:
    /// continues the run whose checkpoint is in `out`, writing on into the
    /// same directory, bit for bit on the backend that wrote it. The scene
    /// is the one the checkpoint names unless given (a run whose scene was
    /// a dict needs it).
    #[staticmethod]
    #[pyo3(signature = (out, backend = "auto", scene = None, force = false, adapter = None))]
    fn resume(
        py: Python<'_>,
        out: PathBuf,
        backend: &str,
        scene: Option<&Bound<'_, PyAny>>,
        force: bool,
        adapter: Option<&str>,
    ) -> PyResult<Simulation> {
        let choice = open::Choice::parse(backend).map_err(value_error)?;
        let (h, saved) = talus::checkpoint::read(&out).map_err(value_error)?;
        let (scene, hash) = match scene {
            Some(s) => load_scene(s)?,
            None => {
                let named = h.scene_file.clone().ok_or_else(|| {
                    value_error(format!(
                        "{}: the checkpoint names no scene file (its scene was given as a dict): pass scene=",
                        out.display()
                    ))
                })?;
                let file = talus::io::run_dir::scene_files(&out, &named)
                    .into_iter()
                    .next()
                    .ok_or_else(|| {
                        value_error(format!(
                            "{}: the checkpoint's scene file {named} is not found: pass scene=",
                            out.display()
                        ))
                    })?;
                load_scene(file.into_pyobject(py)?.as_any())?
            }
        };
        warn(py, &scene)?;
        let setup = Setup::new(scene).map_err(value_error)?;
        let (ckpt, note) =
            open::check_checkpoint(&out, h, saved, &setup, &hash, force).map_err(value_error)?;
        if let Some(note) = note {
            let msg = std::ffi::CString::new(note).unwrap_or_default();
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            PyErr::warn(py, category.as_any(), &msg, 1)?;
        }
        let (b, _) =
            open::open_backend(choice, adapter, &setup, Some(&ckpt)).map_err(runtime_error)?;
        let driver = ckpt.1.driver.clone();
        Simulation::start(setup, b, Some(out), hash, Some(driver))
    }

    /// `run(steps=None, until=None)`: advances `steps` more steps, or to
    /// the first step at or after simulated time `until` (s). Releases
    /// the GIL; Ctrl-C stops it cleanly at a chunk boundary (~0.1 s) and
    /// raises KeyboardInterrupt, the simulation usable where it stopped.
    /// A run that blows up raises RuntimeError and advances no further
    /// (its last good state goes to final.csv at close()).
    #[pyo3(signature = (steps = None, until = None))]
    fn run(&mut self, py: Python<'_>, steps: Option<u64>, until: Option<f64>) -> PyResult<()> {
        if self.closed {
            return Err(runtime_error("run(): the simulation is closed"));
        }
        if let Some(f) = &self.failed {
            return Err(runtime_error(format!("run(): the run failed earlier: {f}")));
        }
        let now = self.sim.step();
        let to = match (steps, until) {
            (Some(n), None) => now + n,
            (None, Some(t)) if t.is_finite() => {
                let dt = self.sim.dt();
                ((t / dt - 1e-9).ceil().max(0.0) as u64).max(now)
            }
            (None, Some(t)) => {
                return Err(value_error(format!(
                    "run(): until: expected a finite time, got {t}"
                )))
            }
            _ => return Err(value_error("run(): give steps or until (one of them)")),
        };
        let mut interrupt: Option<PyErr> = None;
        let sim = Unshared(&mut self.sim as *mut run::Simulation<AnyBackend>);
        let driver = Unshared(&mut self.driver as *mut Option<Driver<'static, 'static>>);
        let pace = Unshared(&mut self.pace as *mut Pace);
        let hold = Unshared(&mut interrupt as *mut Option<PyErr>);
        let ended = py.detach(move || {
            // SAFETY: see Unshared; these are distinct fields of a borrowed
            // self and a local, alive for the call
            let (sim, driver, pace, interrupt) =
                unsafe { (sim.get(), driver.get(), pace.get(), hold.get()) };
            let mut stop = || match Python::attach(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    *interrupt = Some(e);
                    true
                }
            };
            match driver {
                Some(d) => match d.advance(sim, to, &mut stop, &mut Quiet) {
                    Ok(()) => Ended::Done,
                    Err(Halt::Failed) => {
                        Ended::Failed(d.failure().map_or("a failure".into(), |e| e.to_string()))
                    }
                    Err(Halt::Io(e)) => Ended::Io(e.to_string()),
                },
                None => match sim.advance_paced(to - sim.step(), pace, &mut stop) {
                    Ok(_) => Ended::Done,
                    Err(e) => Ended::Failed(e.to_string()),
                },
            }
        });
        match ended {
            Ended::Done => match interrupt {
                Some(e) => Err(e),
                None => Ok(()),
            },
            Ended::Failed(why) => {
                let msg = format!("run stopped at {why}");
                self.failed = Some(msg.clone());
                Err(runtime_error(msg))
            }
            Ended::Io(why) => Err(runtime_error(why)),
        }
    }

    /// Simulated time (s).
    #[getter]
    fn time(&self) -> f64 {
        self.sim.time()
    }

    /// Steps done since t = 0.
    #[getter]
    fn step(&self) -> u64 {
        self.sim.step()
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.sim.dt()
    }

    /// "cpu" or "gpu".
    #[getter]
    fn backend(&self) -> &'static str {
        self.sim.backend().name()
    }

    /// The device the run goes on (the CPU's threads, or the GPU adapter).
    #[getter]
    fn adapter(&self) -> String {
        self.sim.backend().adapter()
    }

    /// The run directory (None: no files written).
    #[getter]
    fn out(&self) -> Option<PathBuf> {
        self.out.clone()
    }

    /// The scene's material names (`materials()` gives each particle's).
    #[getter]
    fn material_names(&self) -> Vec<String> {
        self.sim
            .scene()
            .materials
            .iter()
            .map(|m| m.name.clone())
            .collect()
    }

    /// Particles present now.
    fn __len__(&mut self) -> usize {
        self.sim.particle_count() as usize
    }

    /// Positions (m), float64 (n, 3), in id order (a clump's spheres each
    /// a row, with its id). One read-back.
    fn positions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyAny> {
        rows3(py, &self.particles().pos_rad)
    }

    /// Velocities (m/s), float64 (n, 3), in id order.
    fn velocities<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyAny> {
        rows3(py, &self.particles().vel_invm)
    }

    /// Angular velocities (rad/s), float64 (n, 3), in id order.
    fn spins<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyAny> {
        rows3(py, &self.particles().omega_invi)
    }

    /// Radii (m), float64 (n,), in id order.
    fn radii<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyAny> {
        array1(py, self.particles().pos_rad.iter().map(|r| r[3]).collect())
    }

    /// Ids, uint32 (n,), ascending.
    fn ids<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyAny> {
        array1(py, self.particles().id)
    }

    /// Each particle's material name, numpy str (n,), in id order.
    fn materials<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let names = self.material_names();
        let m: Vec<&str> = self
            .particles()
            .material
            .iter()
            .map(|&k| names[k as usize].as_str())
            .collect();
        py.import("numpy")?.call_method1("array", (m,))
    }

    /// Every per-particle array at once (one read-back): ids, positions,
    /// velocities, spins, radii, materials (indices into material_names),
    /// mass (kg).
    fn state<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = self.particles();
        let d = PyDict::new(py);
        d.set_item("ids", array1(py, p.id.clone()))?;
        d.set_item("positions", rows3(py, &p.pos_rad))?;
        d.set_item("velocities", rows3(py, &p.vel_invm))?;
        d.set_item("spins", rows3(py, &p.omega_invi))?;
        d.set_item(
            "radii",
            array1(py, p.pos_rad.iter().map(|r| r[3]).collect()),
        )?;
        d.set_item("materials", array1(py, p.material.clone()))?;
        let mass = p
            .vel_invm
            .iter()
            .map(|v| {
                if v[3] > 0.0 {
                    1.0 / v[3]
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        d.set_item("mass", array1(py, mass))?;
        Ok(d)
    }

    /// Each particle's force from its contacts and walls at the last step
    /// (N; gravity not counted), float64 (n, 3), in id order as
    /// `positions()` (zero before the first step and for particles
    /// inserted since). One read-back.
    fn forces<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.loads(py, 0)
    }

    /// Each particle's torque from its contacts and walls at the last
    /// step (N m, about its centre), float64 (n, 3), in id order.
    fn torques<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.loads(py, 1)
    }

    /// The energy.csv row now, as a dict (t, kinetic_translational,
    /// kinetic_rotational, potential, elastic, dissipated[, body_…],
    /// residual; J). Its t is a step back: the energies are those the last
    /// step measured. Looking does not change the run's tables.
    fn energy<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.sim.peek_balance();
        let t = self.sim.step().saturating_sub(1) as f64 * self.sim.dt();
        let bodies = self.sim.backend().bodies().is_some();
        let d = PyDict::new(py);
        for (k, v) in run::outputs::energy_row(t, &b, bodies) {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Per scene wall: name, force and torque the particles put on it (N,
    /// N m; torque about the wall's axis point), and its pose: where its
    /// scene geometry stands now (a point x of the scene's wall is at
    /// origin + rotation @ x), and its velocity.
    fn walls<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let loads = self.sim.walls();
        let placed = self.sim.wall_placements();
        let list = PyList::empty(py);
        for (i, ((pose, load), a)) in loads.iter().zip(&placed).enumerate() {
            let Some(w) = self.sim.scene().walls.get(i) else {
                break;
            };
            let d = PyDict::new(py);
            d.set_item("name", w.label(i))?;
            d.set_item("force", array1(py, load.force.to_vec()))?;
            d.set_item("torque", array1(py, load.torque.to_vec()))?;
            let m = a.matrix3;
            let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
            let rot =
                Array2::from_shape_vec((3, 3), vec![x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z])
                    .expect("3 × 3");
            let pd = PyDict::new(py);
            pd.set_item("origin", array1(py, a.translation.to_array().to_vec()))?;
            pd.set_item("rotation", rot.into_pyarray(py))?;
            pd.set_item("velocity", array1(py, pose.velocity.to_array().to_vec()))?;
            d.set_item("pose", pd)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// `set_wall_motion(wall, velocity=None, angular_velocity=None,
    /// axis=None, axis_point=None, start=None, stop=None)`: gives the wall
    /// (name or index) a prescribed motion from the next step on, from
    /// where it stands now, as the scene's `[walls.motion]` would (a law
    /// of the run's time, starting now unless `start` says otherwise);
    /// nothing given: at rest where it is. A checkpoint written after it
    /// resumes only with force=True (the scene file no longer describes
    /// the walls).
    #[pyo3(signature = (wall, velocity = None, angular_velocity = None, axis = None, axis_point = None, start = None, stop = None))]
    #[allow(clippy::too_many_arguments)]
    fn set_wall_motion(
        &mut self,
        wall: &Bound<'_, PyAny>,
        velocity: Option<&Bound<'_, PyAny>>,
        angular_velocity: Option<f64>,
        axis: Option<&Bound<'_, PyAny>>,
        axis_point: Option<&Bound<'_, PyAny>>,
        start: Option<f64>,
        stop: Option<f64>,
    ) -> PyResult<()> {
        let k = self.wall_index(wall)?;
        let velocity = vec3(velocity, "velocity")?;
        let axis = vec3(axis, "axis")?;
        let axis_point = vec3(axis_point, "axis_point")?;
        let none = velocity.is_none()
            && angular_velocity.is_none()
            && axis.is_none()
            && axis_point.is_none();
        let motion = (!none).then(|| {
            let d = WallMotion::default();
            WallMotion {
                velocity: velocity.unwrap_or(d.velocity),
                axis_point: axis_point.unwrap_or(d.axis_point),
                axis: axis.map_or(d.axis, talus::scene::types::unit_or_given),
                angular_velocity: angular_velocity.unwrap_or(0.0),
                oscillation: None,
                start: start.unwrap_or(self.sim.time()),
                stop: stop.unwrap_or(d.stop),
            }
        });
        self.sim.set_wall_motion(k, motion).map_err(value_error)?;
        if let Some(d) = self.driver.as_mut() {
            d.walls_edited();
        }
        Ok(())
    }

    /// `insert(positions, radii, material=None, velocities=None,
    /// spins=None, check_overlap=True)`: adds spheres between runs, from
    /// the next step on; their new ids, uint32 (k,). `positions` (k, 3)
    /// m, `radii` (k,) or one radius, `material` a name (None: the
    /// scene's first), `velocities`/`spins` (k, 3) (None: at rest). Each
    /// must be inside the domain; with `check_overlap` one overlapping a
    /// particle present (or an earlier one of the same call) is refused.
    #[pyo3(signature = (positions, radii, material = None, velocities = None, spins = None, check_overlap = true))]
    #[allow(clippy::too_many_arguments)]
    fn insert<'py>(
        &mut self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        radii: &Bound<'py, PyAny>,
        material: Option<&str>,
        velocities: Option<&Bound<'py, PyAny>>,
        spins: Option<&Bound<'py, PyAny>>,
        check_overlap: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if self.closed {
            return Err(runtime_error("insert(): the simulation is closed"));
        }
        let x = rows_of(py, positions, "positions", None)?;
        let k = x.len();
        let r = radii_of(py, radii, k)?;
        let v = match velocities {
            Some(v) => rows_of(py, v, "velocities", Some(k))?,
            None => vec![[0.0; 3]; k],
        };
        let w = match spins {
            Some(w) => rows_of(py, w, "spins", Some(k))?,
            None => vec![[0.0; 3]; k],
        };
        let names = self.material_names();
        let m = match material {
            None => 0,
            Some(name) => names.iter().position(|n| n == name).ok_or_else(|| {
                value_error(format!(
                    "insert(): material \"{name}\": no such material (the scene's: {})",
                    names.join(", ")
                ))
            })?,
        };
        let add: Vec<talus::scene::types::ParticleInit> = (0..k)
            .map(|i| talus::scene::types::ParticleInit {
                position: x[i],
                velocity: v[i],
                angular_velocity: w[i],
                radius: r[i],
                material: m,
                source: 0,
                id: None,
                shape: None,
                orientation: talus::scene::types::IDENTITY,
            })
            .collect();
        if check_overlap {
            if let Some(i) = self.sim.overlapping(&add) {
                return Err(value_error(format!(
                    "insert(): particle {i} at {:?} (radius {}) overlaps a particle present or inserted before it (check_overlap=False places it anyway)",
                    x[i], r[i]
                )));
            }
        }
        let ids = self
            .sim
            .insert_particles(&add)
            .map_err(|e| value_error(format!("insert(): {e}")))?;
        Ok(array1(py, ids))
    }

    /// `remove(ids)`: takes the particles with these ids out between runs
    /// (a clump whole, its bonds gone): how many rows went.
    fn remove(&mut self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<usize> {
        if self.closed {
            return Err(runtime_error("remove(): the simulation is closed"));
        }
        let list = py
            .import("numpy")?
            .call_method1("asarray", (ids,))?
            .call_method0("ravel")?
            .call_method0("tolist")?;
        let ids: Vec<u32> = list
            .extract()
            .map_err(|_| value_error("remove(): ids: expected particle ids (integers ≥ 0)"))?;
        self.sim
            .remove_particles(&ids)
            .map_err(|e| value_error(format!("remove(): {e}")))
    }

    /// Writes `checkpoint.bin` into the run directory (where the run
    /// stands; `Simulation.resume(out)` continues from it): its path.
    fn checkpoint(&mut self) -> PyResult<PathBuf> {
        if self.closed {
            return Err(runtime_error("checkpoint(): the simulation is closed"));
        }
        let Some(d) = self.driver.as_mut() else {
            return Err(value_error(
                "checkpoint(): this simulation writes no run directory (give out=)",
            ));
        };
        d.checkpoint(&mut self.sim).map_err(runtime_error)?;
        Ok(d.dir().join(talus::checkpoint::CHECKPOINT_FILE))
    }

    /// Ends the run directory as `talus run` ends it (the last step's row
    /// and snapshot, a checkpoint, final.csv, summary.json) and returns
    /// the summary (None without `out`). The state stays readable; run()
    /// is refused after it. Called by `with` and when the object goes.
    fn close<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.finish().map_err(runtime_error)? {
            Some(json) => Ok(Some(py.import("json")?.call_method1("loads", (json,))?)),
            None => Ok(None),
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &mut self,
        py: Python<'_>,
        _t: Option<&Bound<'_, PyAny>>,
        _v: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&mut self) -> String {
        format!(
            "talus.Simulation({} particles, step {}, t = {:.4e} s, {} on {}{})",
            self.sim.particle_count(),
            self.sim.step(),
            self.sim.time(),
            self.sim.backend().name(),
            self.sim.backend().adapter(),
            self.out
                .as_ref()
                .map_or(String::new(), |o| format!(", out = {}", o.display()))
        )
    }
}

impl Drop for Simulation {
    fn drop(&mut self) {
        if !self.closed {
            if let Err(e) = self.finish() {
                eprintln!("talus: closing the run directory: {e}");
            }
        }
    }
}

/// A VTU file talus wrote (a snapshot): "points" (n, 3) and each point
/// array by name ((n,) or (n, components)); cell arrays as "cell:<name>".
#[pyfunction]
fn read_vtu<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let v = talus::io::vtk::read_vtu(&path).map_err(value_error)?;
    let d = PyDict::new(py);
    let flat: Vec<f64> = v.coords.iter().flatten().copied().collect();
    d.set_item(
        "points",
        Array2::from_shape_vec((v.points, 3), flat)
            .map_err(value_error)?
            .into_pyarray(py),
    )?;
    let arrays = v
        .point_data
        .iter()
        .map(|a| (a.name.clone(), a, v.points))
        .chain(
            v.cell_data
                .iter()
                .map(|a| (format!("cell:{}", a.name), a, v.cells)),
        );
    for (name, a, n) in arrays {
        let obj = match &a.data {
            talus::io::vtk::VtuData::F64(x) if a.comps == 1 => array1(py, x.clone()),
            talus::io::vtk::VtuData::I64(x) if a.comps == 1 => array1(py, x.clone()),
            talus::io::vtk::VtuData::F64(x) => Array2::from_shape_vec((n, a.comps), x.clone())
                .map_err(|e| value_error(format!("{}: {name}: {e}", path.display())))?
                .into_pyarray(py)
                .into_any(),
            talus::io::vtk::VtuData::I64(x) => Array2::from_shape_vec((n, a.comps), x.clone())
                .map_err(|e| value_error(format!("{}: {name}: {e}", path.display())))?
                .into_pyarray(py)
                .into_any(),
        };
        d.set_item(name, obj)?;
    }
    Ok(d)
}

/// A table a run wrote, by column: numbers as float64 arrays, text as
/// lists of str.
#[pyfunction]
fn read_table<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let cols = talus::io::table::read_table(&path).map_err(value_error)?;
    let d = PyDict::new(py);
    for (name, c) in cols {
        match c {
            talus::io::table::Column::Numbers(x) => d.set_item(name, array1(py, x))?,
            talus::io::table::Column::Text(x) => d.set_item(name, x)?,
        }
    }
    Ok(d)
}

/// A run directory's listing: "particles", "walls", "bodies" (lists of
/// (time, file)), "summary" (JSON text or None), "scene_file" (or None).
#[pyfunction]
fn run_files<'py>(py: Python<'py>, dir: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let f = talus::io::run_dir::RunFiles::open(&dir).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("particles", f.particles)?;
    d.set_item("walls", f.walls)?;
    d.set_item("bodies", f.bodies)?;
    let bonds = dir.join("bonds.pvd");
    let bonds = if bonds.is_file() {
        talus::io::vtk::read_pvd(&bonds).map_err(value_error)?
    } else {
        Vec::new()
    };
    d.set_item("bonds", bonds)?;
    d.set_item("summary", f.summary.map(|s| s.to_string()))?;
    d.set_item(
        "scene_file",
        f.scene
            .and_then(|s| s.file)
            .map(|p| p.display().to_string()),
    )?;
    Ok(d)
}

/// `validate(backend="cpu", cases=None, full=False, out=None, set=None)`:
/// the validation cases (`talus validate`), their rows as dicts (case,
/// title, backend, quantity, expected, measured, error, tolerance, pass).
/// `out` also writes report.md and the plots there.
#[pyfunction]
#[pyo3(signature = (backend = "cpu", cases = None, full = false, out = None, set = None))]
fn validate<'py>(
    py: Python<'py>,
    backend: &str,
    cases: Option<Vec<String>>,
    full: bool,
    out: Option<PathBuf>,
    set: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyList>> {
    use talus_studies::validate as v;
    if !["cpu", "gpu", "all"].contains(&backend) {
        return Err(value_error(format!(
            "validate(): backend: expected \"cpu\", \"gpu\" or \"all\", got \"{backend}\""
        )));
    }
    let args = v::Args {
        backend: backend.to_string(),
        full,
        out: out
            .clone()
            .unwrap_or_else(|| PathBuf::from("out/validation")),
        cases: cases.map(|c| c.join(",")),
        set: set.unwrap_or_default(),
        list_options: false,
    };
    let cfg = v::command::config(&args).map_err(value_error)?;
    let gpu_required = backend == "gpu";
    let (all, notes, _) = py
        .detach(|| v::run_cases(&cfg, gpu_required))
        .map_err(runtime_error)?;
    if out.is_some() {
        let lig = v::liggghts::load(&cfg.out);
        v::report::write(&cfg.out, &all, lig.as_ref(), &notes, cfg.full)
            .map_err(|e| runtime_error(format!("{}: {e}", cfg.out.display())))?;
    }
    let list = PyList::empty(py);
    for c in &all {
        for (b, r) in &c.results {
            let r = r
                .as_ref()
                .map_err(|e| runtime_error(format!("case {} on {b}: {e}", c.def.id)))?;
            for row in &r.rows {
                let d = PyDict::new(py);
                d.set_item("case", c.def.id)?;
                d.set_item("title", c.def.title)?;
                d.set_item("backend", b)?;
                d.set_item("quantity", &row.quantity)?;
                d.set_item("expected", row.expected)?;
                d.set_item("measured", row.measured)?;
                d.set_item("error", row.error())?;
                let tol = match row.tol {
                    v::row::Tol::Rel(t) => format!("{} %", 100.0 * t),
                    v::row::Tol::Abs(t) => format!("± {t}"),
                    v::row::Tol::Info => "info".into(),
                };
                d.set_item("tolerance", tol)?;
                d.set_item("pass", row.pass())?;
                list.append(d)?;
            }
        }
    }
    Ok(list)
}

/// `analyze(run, verb, *args)`: `talus analyze RUN VERB ARGS…`'s text
/// (e.g. analyze("out/settle", "layers", "--bins", 10); numbers are
/// taken as their text); it also writes VERB.csv and VERB.png into
/// RUN/analysis (or `--out`).
#[pyfunction]
#[pyo3(signature = (run, verb, *args))]
fn analyze(run: PathBuf, verb: &str, args: Vec<Bound<'_, PyAny>>) -> PyResult<String> {
    let words = args
        .iter()
        .map(|a| a.str().map(|s| s.to_string()))
        .collect::<PyResult<Vec<String>>>()?;
    talus_studies::analyze::command::run(Path::new(&run), verb, &words).map_err(value_error)
}

#[pymodule]
fn _talus(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(read_vtu, m)?)?;
    m.add_function(wrap_pyfunction!(read_table, m)?)?;
    m.add_function(wrap_pyfunction!(run_files, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
