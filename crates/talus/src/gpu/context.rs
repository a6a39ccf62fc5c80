//! `GpuContext`: the one owner of the wgpu instance, adapter, device and
//! queue. Nothing else creates a device; stages and data take `&GpuContext`.

use std::any::Any;
use std::sync::{Arc, Mutex};

/// Errors of the GPU path, each one line for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// No usable adapter (and why).
    #[error("{0}")]
    NoAdapter(String),
    /// The adapter or device cannot run talus.
    #[error("{0}")]
    Device(String),
    /// The scene does not fit the device's buffers.
    #[error("{0}")]
    TooLarge(String),
    /// A checkpoint that does not fit the scene or is inconsistent.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    /// The scene cannot be resolved for a run
    /// ([`crate::setup::Setup::new`]: a body's mesh, the grid), met by the
    /// constructors that take a scene alone.
    #[error("{0}")]
    Scene(#[from] crate::scene::error::SceneError),
}

pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    /// The adapter's real limits (requested in full, not WebGPU defaults).
    pub limits: wgpu::Limits,
    /// How the contacts stage sums pairs on this device ([`Pairs`]).
    pub pairs: Pairs,
    /// Held while this context (or a share of it) is lent out of the test
    /// pool (`test_context`); `None` for a context made by `new`.
    lease: Option<Arc<()>>,
    /// The device's compiled kernels, one set per paging (`Paging::key`),
    /// built by the first backend on it that needs them and shared by its
    /// shares (`GpuPipelines::shared`: ~0.6 s of shader compilation each on
    /// lavapipe). Opaque here: the kernels' module imports this one.
    pub(crate) kernels: Arc<Mutex<Vec<Built>>>,
}

/// One paging's key and compiled kernels, opaque here (`GpuPipelines`).
type Built = (Vec<u64>, Arc<dyn Any + Send + Sync>);

/// How the GPU's contacts stage evaluates a pair: both ways give the same
/// bits (each particle's pair sums are 64-bit fixed point, exact in any
/// order), so this is a choice of speed and memory only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pairs {
    /// Each pair once: a row lists the partners of higher id, and the
    /// pair's force goes to both partners' sums by integer atomics. Half
    /// the list, half the law evaluations and partner reads; 64 B a
    /// particle of sums. A GPU's default.
    Once,
    /// Each pair from both sides: a row lists every partner and each
    /// particle sums its own (a gather, no atomics). On lavapipe this is
    /// ~15 % faster at 10⁵ particles (its atomics are slow): a CPU
    /// adapter's default.
    Both,
}

/// The environment variable that chooses [`Pairs`] for every device:
/// `once` or `both` (unset: by the adapter).
pub const PAIRS_ENV: &str = "TALUS_GPU_PAIRS";

impl Pairs {
    /// [`PAIRS_ENV`] if set, else `Both` on a CPU adapter and `Once` on
    /// any other.
    pub fn for_adapter(info: &wgpu::AdapterInfo) -> Result<Pairs, GpuError> {
        match std::env::var(PAIRS_ENV).ok().as_deref() {
            Some("once") => Ok(Pairs::Once),
            Some("both") => Ok(Pairs::Both),
            Some(other) => Err(GpuError::Device(format!(
                "{PAIRS_ENV}={other:?}: expected \"once\" or \"both\""
            ))),
            None if info.device_type == wgpu::DeviceType::Cpu => Ok(Pairs::Both),
            None => Ok(Pairs::Once),
        }
    }

    /// List entries per particle a run starts with and the fewest a scene
    /// is admitted with (`gpu::data`): a settled monodisperse bed lists ~9
    /// at the default skin from both sides, ~4.5 once (a denser one grows
    /// the list at its first build).
    pub fn list_entries(self) -> u64 {
        match self {
            Pairs::Once => 5,
            Pairs::Both => 10,
        }
    }

    /// The list entries per particle of a list of both sides that `self`
    /// holds (a dense bed's `memory::PLANNED_ENTRIES`, for one).
    pub fn entries_of(self, both_sides: u64) -> u64 {
        match self {
            Pairs::Once => both_sides.div_ceil(2),
            Pairs::Both => both_sides,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Pairs::Once => "each pair once",
            Pairs::Both => "each pair from both sides",
        }
    }
}

/// Vulkan, Metal and DX12 unless `WGPU_BACKEND` (e.g. `vulkan`, `gl`)
/// says otherwise.
fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY)
}

/// The instance. wgpu checks the arguments of every indirect dispatch with
/// a dispatch of its own (one workgroup and two barriers before each of
/// the ~20 rebuild dispatches a step, `GpuData::args`); ours are the
/// host's own workgroup counts (`kernel::groups`, within every adapter's
/// limit) or zero, so the check is off, except on Windows: D3D12 without it
/// reports `num_workgroups` as 0, which `flat_index` reads.
/// `WGPU_VALIDATION_INDIRECT_CALL=1` turns it back on.
///
/// A new instance for every context. One instance shared by a process's
/// contexts was tried (the H100 once found no adapter for a test process
/// that had made ~100 instances): it slowed `tests/walls.rs` on lavapipe
/// from 136 s to 170 s, and on an H200 200 fresh instances in one process
/// each found their adapter (`many_fresh_instances_in_one_process`).
pub fn fresh_instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    if !cfg!(windows) {
        desc.flags
            .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    let mut desc = desc.with_env();
    desc.backends = backends();
    wgpu::Instance::new(desc)
}

fn type_rank(t: wgpu::DeviceType) -> u32 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// One line describing an adapter: name, backend, type, driver.
pub fn describe(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    )
}

/// What `talus info` and `talus check` say of an adapter.
#[derive(Debug, Clone)]
pub struct AdapterSummary {
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// What it lacks, for one talus passes over.
    pub lacks: Option<&'static str>,
    /// Its memory in bytes, where its API says ([`device_memory`]).
    pub memory: Option<u64>,
}

/// Largest single storage binding and buffer of `limits`, in bytes.
pub fn max_binding(limits: &wgpu::Limits) -> u64 {
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

/// Every adapter wgpu finds, in the order a run picks from.
pub fn list_adapters() -> Vec<AdapterSummary> {
    let inst = fresh_instance();
    let mut adapters = pollster::block_on(inst.enumerate_adapters(backends()));
    adapters.sort_by_key(|a| type_rank(a.get_info().device_type));
    adapters
        .into_iter()
        .map(|a| AdapterSummary {
            info: a.get_info(),
            limits: a.limits(),
            lacks: lacks(&a),
            memory: device_memory(&a),
        })
        .collect()
}

/// The adapter's own memory in bytes, where its API says: on Vulkan the
/// largest device-local heap (a discrete card's memory; on lavapipe or an
/// integrated GPU, the system memory it shares). None on other APIs (and
/// where wgpu builds no Vulkan backend).
#[cfg(any(target_os = "linux", target_os = "windows", target_os = "android"))]
pub fn device_memory(a: &wgpu::Adapter) -> Option<u64> {
    // SAFETY: the hal adapter is only borrowed for a query; nothing is
    // created or destroyed through it.
    let hal = unsafe { a.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let instance = hal.shared_instance().raw_instance();
    // SAFETY: the physical device belongs to this instance, alive here.
    let props =
        unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
    // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
    const DEVICE_LOCAL: u32 = 1;
    props.memory_heaps[..props.memory_heap_count as usize]
        .iter()
        .filter(|h| h.flags.as_raw() & DEVICE_LOCAL != 0)
        .map(|h| h.size)
        .max()
}

#[cfg(not(any(target_os = "linux", target_os = "windows", target_os = "android")))]
pub fn device_memory(_: &wgpu::Adapter) -> Option<u64> {
    None
}

/// What an adapter lacks of what the step needs beyond the WebGPU core, if
/// anything: compute shaders, and indirect dispatch (the rebuild kernels'
/// workgroup counts are written on the GPU: `GpuData::args`). Every Vulkan,
/// Metal and DX12 adapter has both; some GL ones do not.
fn lacks(a: &wgpu::Adapter) -> Option<&'static str> {
    let flags = a.get_downlevel_capabilities().flags;
    if !flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS) {
        Some("no compute shaders")
    } else if !flags.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION) {
        Some("no indirect dispatch")
    } else {
        None
    }
}

impl GpuContext {
    /// Picks an adapter: the first whose name contains `filter`
    /// (case-insensitive), else a discrete GPU, else the best other kind
    /// (a CPU rasteriser like lavapipe last). Compute shaders are required.
    pub fn new(filter: Option<&str>) -> Result<GpuContext, GpuError> {
        Self::pick(filter, 0)
    }

    /// The `k`-th (round robin) of the adapters of the best kind among
    /// those `filter` matches (all when None): rank k of a node takes its
    /// own GPU, several ranks sharing one when there are fewer. `k = 0` is
    /// [`GpuContext::new`].
    pub fn pick(filter: Option<&str>, k: usize) -> Result<GpuContext, GpuError> {
        let inst = fresh_instance();
        let mut adapters: Vec<wgpu::Adapter> =
            pollster::block_on(inst.enumerate_adapters(backends()))
                .into_iter()
                .filter(|a| lacks(a).is_none())
                .collect();
        if adapters.is_empty() {
            return Err(GpuError::NoAdapter(
                "no GPU adapter with compute shaders and indirect dispatch found (install a Vulkan driver, e.g. Debian's mesa-vulkan-drivers for a software one)".into(),
            ));
        }
        adapters.sort_by_key(|a| type_rank(a.get_info().device_type));
        if let Some(f) = filter {
            let fl = f.to_lowercase();
            let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
            adapters.retain(|a| a.get_info().name.to_lowercase().contains(&fl));
            if adapters.is_empty() {
                return Err(GpuError::NoAdapter(format!(
                    "--adapter {f}: no adapter matches (found: {})",
                    names.join("; ")
                )));
            }
        }
        // the best kind's (a discrete GPU before a software one)
        let best = type_rank(adapters[0].get_info().device_type);
        adapters.retain(|a| type_rank(a.get_info().device_type) == best);
        let adapter = adapters.swap_remove(k % adapters.len());
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("talus"),
            // timestamps only for `talus bench`'s per-stage times, when offered
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Device(format!("{}: cannot open the device: {e}", info.name)))?;
        let pairs = Pairs::for_adapter(&info)?;
        Ok(GpuContext {
            pairs,
            instance: inst,
            adapter,
            device,
            queue,
            info,
            limits,
            lease: None,
            kernels: Arc::default(),
        })
    }

    /// Another handle on the same instance, adapter, device and queue
    /// (wgpu's handles are shared, nothing is re-opened): for several
    /// backends on one device, as `talus validate` runs its scenes.
    pub fn share(&self) -> GpuContext {
        GpuContext {
            instance: self.instance.clone(),
            adapter: self.adapter.clone(),
            device: self.device.clone(),
            queue: self.queue.clone(),
            info: self.info.clone(),
            limits: self.limits.clone(),
            pairs: self.pairs,
            lease: self.lease.clone(),
            kernels: self.kernels.clone(),
        }
    }

    pub fn describe(&self) -> String {
        describe(&self.info)
    }

    /// The device's memory in bytes, where its API says ([`device_memory`]).
    pub fn memory(&self) -> Option<u64> {
        device_memory(&self.adapter)
    }

    /// Largest single storage binding and buffer, in bytes.
    pub fn max_binding(&self) -> u64 {
        max_binding(&self.limits)
    }
}

/// The test pool: every context `test_context` opened in this process,
/// each with the token its lent shares hold.
static POOL: Mutex<Vec<(GpuContext, Arc<()>)>> = Mutex::new(Vec::new());

/// A context from the test pool: a share of one no running test holds, or
/// a new one added to the pool. A test process so opens as many devices as
/// it runs tests at once, not one per test: on an NVIDIA H100 (driver
/// 580.159.04) a process that had opened 30 devices, one after another and
/// each dropped, found no adapter any more (`many_contexts_in_one_process`,
/// docs/performance.md), and `tests/gpu.rs` alone has 33 calls. Tests
/// running at once still get devices of their own: one shared device
/// serialised their work on lavapipe (`tests/walls.rs` 103 s → 333 s).
fn pooled_context(filter: Option<&str>) -> Result<GpuContext, GpuError> {
    let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
    // a token held only by the pool: no lent share of that context lives
    let free = pool.iter().position(|(_, t)| Arc::strong_count(t) == 1);
    let k = match free {
        Some(k) => k,
        None => {
            pool.push((GpuContext::new(filter)?, Arc::new(())));
            pool.len() - 1
        }
    };
    let (ctx, token) = &pool[k];
    let mut lent = ctx.share();
    lent.lease = Some(token.clone());
    Ok(lent)
}

/// How many devices the test pool has opened in this process.
pub fn test_pool_size() -> usize {
    POOL.lock().unwrap_or_else(|p| p.into_inner()).len()
}

/// For tests: a context, or `None` with the reason printed. With
/// `TALUS_REQUIRE_GPU=1` (set by CI) a missing adapter is a failure.
/// Contexts come from a per-process pool (`pooled_context`): a test gets a
/// device no other running test holds, often one an earlier test used.
pub fn test_context() -> Option<GpuContext> {
    match pooled_context(std::env::var("TALUS_ADAPTER").ok().as_deref()) {
        Ok(c) => {
            eprintln!("GPU tests on {}", c.describe());
            Some(c)
        }
        Err(e) => {
            if std::env::var("TALUS_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("TALUS_REQUIRE_GPU=1 but no GPU: {e}");
            }
            eprintln!("skipping GPU test: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests held at once get devices of their own; a device whose test
    /// ended is lent again instead of a new one opened. (The only user of
    /// the pool in this test binary, so the counts are exact.)
    #[test]
    fn the_test_pool_reuses_devices() {
        let Some(a) = test_context() else { return };
        let b = test_context().expect("a second context");
        assert_eq!(test_pool_size(), 2, "two running tests share a device");
        drop(a);
        for k in 0..10 {
            let c = test_context().expect("a context");
            assert_eq!(
                test_pool_size(),
                2 + k.min(1),
                "a free device not lent again"
            );
            // a share keeps the lease: the device stays lent while it lives
            let shared = c.share();
            drop(c);
            let d = test_context().expect("a context");
            assert_eq!(test_pool_size(), 3, "a device lent twice, or not reused");
            drop((shared, d));
        }
        drop(b);
        for _ in 0..10 {
            drop(test_context());
        }
        assert_eq!(test_pool_size(), 3);
    }
}
