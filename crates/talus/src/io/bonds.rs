//! The bonds' outputs: `bonds.csv` (a row per output: bonds intact,
//! broken, broken in tension, in shear, gone with a particle) and one
//! `bonds_NNNNN.vtu` per snapshot, in `bonds.pvd`: each intact bond a line
//! between its particles' centres, with what it carries as cell data, so
//! ParaView draws the force network of a bonded sample (colour by
//! `normal_force`, or threshold `tensile_stress` near the strength).

use crate::bonds::table::{params_of, stresses, Bonds, Counts, Status};
use crate::io::vtk::{arr, write_grid};
use crate::scene::types::BondSpec;
use crate::state::Particles;
use std::path::Path;

/// `bonds.csv`'s header.
pub const BONDS_CSV_HEADER: &str = "t,intact,broken,broken_tension,broken_shear,gone";

/// `bonds.csv`'s row of `c` at time `t`.
pub fn csv_row(t: f64, c: &Counts) -> String {
    format!(
        "{t:e},{},{},{},{},{}\n",
        c.intact,
        c.broken(),
        c.tension,
        c.shear,
        c.gone
    )
}

/// Writes the intact bonds of `bonds` among the particles `p` as lines
/// between centres (two points a bond, a's then b's). Cell data: `ids`
/// (a's and b's), `normal_force` (N, > 0 tension), `shear_force`,
/// `twisting_moment` and `bending_moment` (magnitudes, N and N m),
/// `tensile_stress` and `shear_stress` (Pa, as the law tests them against
/// the strengths), `length` (m, at formation).
pub fn write_vtu(
    path: &Path,
    p: &Particles<f64>,
    bonds: &Bonds,
    specs: &[BondSpec],
) -> std::io::Result<()> {
    let row: std::collections::HashMap<u32, usize> =
        p.id.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (mut pts, mut ids) = (Vec::new(), Vec::new());
    let (mut fn_, mut fs, mut mt, mut mb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut sig, mut tau, mut l) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..bonds.len() {
        if bonds.status[k] != Status::Intact {
            continue;
        }
        let [a, b] = bonds.ids[k];
        let (Some(&ra), Some(&rb)) = (row.get(&a), row.get(&b)) else {
            continue;
        };
        for r in [ra, rb] {
            pts.extend_from_slice(&p.pos_rad[r][..3]);
        }
        ids.extend_from_slice(&[a, b]);
        let s = &bonds.state[k];
        let bp = params_of(
            &specs[bonds.spec[k] as usize],
            bonds.length[k],
            bonds.radius[k],
        );
        let (sg, ta) = stresses(&bp, s);
        fn_.push(s.normal);
        fs.push(len(s.shear));
        mt.push(s.twist.abs());
        mb.push(len(s.bend));
        sig.push(sg);
        tau.push(ta);
        l.push(bonds.length[k]);
    }
    let n = ids.len() / 2;
    let conn: Vec<i64> = (0..2 * n as i64).collect();
    let offsets: Vec<i64> = (1..=n as i64).map(|k| 2 * k).collect();
    let types = vec![3u8; n]; // VTK_LINE
    write_grid(
        path,
        [2 * n, n],
        ("PointData", &[]),
        (
            "CellData Scalars=\"normal_force\"",
            &[
                arr("ids", "UInt32", 2, &ids),
                arr("normal_force", "Float64", 1, &fn_),
                arr("shear_force", "Float64", 1, &fs),
                arr("twisting_moment", "Float64", 1, &mt),
                arr("bending_moment", "Float64", 1, &mb),
                arr("tensile_stress", "Float64", 1, &sig),
                arr("shear_stress", "Float64", 1, &tau),
                arr("length", "Float64", 1, &l),
            ],
        ),
        &arr("Points", "Float64", 3, &pts),
        &[
            arr("connectivity", "Int64", 1, &conn),
            arr("offsets", "Int64", 1, &offsets),
            arr("types", "UInt8", 1, &types),
        ],
    )
}
