//! Stage 4, contacts (`shaders/contacts.wgsl`): each pair once.
//! `contacts` evaluates the pairs of each particle's row (its partners of
//! higher id) and adds each to both partners' sums (`acc`: 64-bit fixed
//! point, integer atomics, exact in any order); `contacts_walls` takes
//! each particle's sums, adds its wall entries and writes force and
//! torque. Reads set B, updates the history beside each list entry in
//! place. On the steps that want the wall loads (every step
//! with a servo, else the last step of an `advance`) `wall_loads` runs
//! first, the same wall contacts without writing, each particle's load
//! added to its wall's exact sums (integer atomics: the total does not
//! depend on the particles' order), and `wall_loads_sum` turns them into
//! each wall's pose record. The large particles' rows (the grid's large
//! levels, first in cell order) take `contacts_large`: a workgroup per
//! row.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};

pub use super::layout::LARGE_GROUPS;

pub struct ContactKernels {
    pub contacts: Kernel,
    pub large: Kernel,
    pub walls: Kernel,
    pub loads: Kernel,
    pub loads_sum: Kernel,
}

pub struct ContactBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
    pub g2: wgpu::BindGroup,
}

impl ContactKernels {
    /// `contacts`, `wall_loads`, `wall_loads_sum`, `contacts_large`,
    /// `contacts_walls`. Group 0: params, ctl,
    /// nbr_start, nbr, pairs, walls, wall_motion, wall_pose, wall_acc;
    /// group 1: pos, motion, clump_row (a clump member's lever); group 2: nbr_hist, the
    /// deforming surfaces' uniform, nodes, triangles and force words (a
    /// contact with a surface triangle reads its nodes' velocities and
    /// adds its force to them), the work records (pair sums, force and
    /// torque) and the sums' error bits: 17 storage buffers, and the pages past the
    /// first of its paged arrays beside them (`pages`).
    /// One layout for the five (and one set of bind groups: see
    /// `NeighbourKernels::DECLS` for why).
    pub const DECLS: [KernelDecl; 5] = {
        const S: &str = "contacts.wgsl";
        const G: &[&[Access]] = &[
            &[U, RW, R, RW, R, R, R, RW, RW],
            &[R, R, R],
            &[RW, U, R, R, RW, RW, RW],
        ];
        [
            KernelDecl::new(S, "contacts", G),
            KernelDecl::new(S, "wall_loads", G),
            KernelDecl::new(S, "wall_loads_sum", G),
            KernelDecl::new(S, "contacts_large", G),
            KernelDecl::new(S, "contacts_walls", G),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        ContactKernels {
            contacts: k(0),
            loads: k(1),
            loads_sum: k(2),
            large: k(3),
            walls: k(4),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> ContactBinds {
        let b = &d.b;
        let g0 = [
            &d.params,
            &d.ctl,
            &d.nbr_start,
            d.nbr.first(),
            &d.pairs,
            &d.walls,
            &d.wall_motion,
            &d.wall_pose,
            &d.wall_acc,
        ];
        let g1 = [b.pos.first(), b.motion.first(), b.clump_row.first()];
        let g2 = [
            d.nbr_hist.first(),
            &d.surf_info,
            &d.surf_nodes,
            &d.surf_tris,
            &d.surf_force,
            d.acc.first(),
            &d.acc_bad,
        ];
        let k = &self.contacts;
        let pages = [
            ("nbr", &d.nbr),
            ("nbr_hist", &d.nbr_hist),
            ("pos_rad", &b.pos),
            ("motion", &b.motion),
            ("clump_row", &b.clump_row),
            ("acc", &d.acc),
        ];
        ContactBinds {
            g0: k.bind_paged(ctx, 0, &g0, &pages),
            g1: k.bind_paged(ctx, 1, &g1, &pages),
            g2: k.bind_paged(ctx, 2, &g2, &pages),
        }
    }

    pub fn encode(&self, c: &ContactBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        self.encode_loads(c, pass, d);
        self.encode_pairs(c, pass, d);
    }

    /// The first half of [`ContactKernels::encode`]: `wall_loads`, each
    /// particle's wall loads into the walls' exact sums (a run on several
    /// ranks adds the ranks' sums between the halves).
    pub fn encode_loads(&self, c: &ContactBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        if d.n_bodies > 0 {
            // only on a step that wants the loads: no launch on the others
            let groups = [(0, &c.g0), (1, &c.g1), (2, &c.g2)];
            let each = d.args_for(Over::LOAD_PARTICLES);
            dispatch_indirect(pass, &self.loads, &groups, each);
        }
    }

    /// The second half: the sums into the walls' poses, then the pairs.
    pub fn encode_pairs(&self, c: &ContactBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        let groups = [(0, &c.g0), (1, &c.g1), (2, &c.g2)];
        if d.n_bodies > 0 {
            // a thread per scene wall
            let walls = d.args_for(Over::load_walls(d.n_bodies));
            dispatch_indirect(pass, &self.loads_sum, &groups, walls);
        }
        dispatch_indirect(pass, &self.contacts, &groups, d.args_for(Over::EveryStep));
        // the large particles' rows, a workgroup each (only a grid with
        // large levels has any)
        if d.large_levels > 0 {
            pass.set_pipeline(&self.large.pipeline);
            for (g, bg) in &groups {
                pass.set_bind_group(*g, *bg, &[]);
            }
            pass.dispatch_workgroups(LARGE_GROUPS, 1, 1);
        }
        // every pair in: the sums, the walls, force and torque (with each
        // pair from both sides, only the large rows' sums wait for it)
        if d.pair_sums {
            dispatch_indirect(pass, &self.walls, &groups, d.args_for(Over::EveryStep));
        }
    }
}
