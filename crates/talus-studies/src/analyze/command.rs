//! `talus analyze RUN_DIR VERB [options]`: each verb reads the run, writes
//! `<verb>.csv` and `<verb>.png` into `--out` (default `RUN_DIR/analysis`)
//! and returns a short summary for stdout (`docs/analysis.md`).
//!
//! A run with clumps: volumes and fractions weigh each member sphere with
//! its clump's union share, contacts are between particles (a clump's own
//! members overlap and never count), the velocity and plane-flow take each
//! clump once at its centre of mass, and the surface of a heap is every
//! sphere's (`rundir::Grains`).

use super::args::{self, Options};
use super::contacts::{
    between_particles, coordination, find_contacts, normal_forces, normalised_histogram,
    particle_contacts,
};
use super::flow::{cumulative_mass, plane_flux, rate, steady_rate};
use super::fraction::{layered_profile_weighted, radial_profile_weighted, solid_fraction_weighted};
use super::plot::{draw, Chart, Series, Style};
use super::repose::angle_of_repose;
use super::rundir::{Grains, RunDir};
use super::velocity::velocity_profile;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use talus::scene::Region;
use talus::state::Particles;

/// The verbs and the options each takes.
pub const VERBS: [(&str, &[&str]); 10] = [
    ("fraction", &["--region", "--snapshot", "--out"]),
    ("layers", &["--region", "--bins", "--snapshot", "--out"]),
    ("radial", &["--region", "--bins", "--snapshot", "--out"]),
    (
        "coordination",
        &["--region", "--min-contacts", "--snapshot", "--out"],
    ),
    ("forces", &["--bins", "--snapshot", "--out"]),
    ("flow", &["--from", "--to", "--outlet", "--out"]),
    ("plane-flow", &["--axis", "--at", "--from", "--to", "--out"]),
    (
        "velocity",
        &["--axis", "--bins", "--region", "--snapshot", "--out"],
    ),
    (
        "repose",
        &[
            "--axis",
            "--bins",
            "--region",
            "--trim",
            "--snapshot",
            "--out",
        ],
    ),
    ("all", &["--region", "--bins", "--snapshot", "--out"]),
];

fn verb_names() -> String {
    VERBS.iter().map(|v| v.0).collect::<Vec<_>>().join(", ")
}

/// Runs `verb` on the run in `dir` with `args` (the options after the
/// verb); returns the summary to print.
pub fn run(dir: &Path, verb: &str, args: &[String]) -> Result<String, String> {
    let Some((_, allowed)) = VERBS.iter().find(|v| v.0 == verb) else {
        return Err(format!(
            "analyze: unknown verb \"{verb}\"; expected one of {}",
            verb_names()
        ));
    };
    let o = args::parse(verb, args, allowed)?;
    let run = RunDir::open(dir)?;
    let out = o.out.clone().unwrap_or_else(|| dir.join("analysis"));
    std::fs::create_dir_all(&out).map_err(|e| format!("--out {}: {e}", out.display()))?;
    let ctx = Ctx { run, o, out };
    match verb {
        "fraction" => ctx.fraction(),
        "layers" => ctx.layers(),
        "radial" => ctx.radial(),
        "coordination" => ctx.coordination(),
        "forces" => ctx.forces(),
        "flow" => ctx.flow(),
        "plane-flow" => ctx.plane_flow(),
        "velocity" => ctx.velocity(),
        "repose" => ctx.repose(),
        _ => ctx.all(),
    }
}

/// A verb's implementation.
type Verb = fn(&Ctx) -> Result<String, String>;

struct Ctx {
    run: RunDir,
    o: Options,
    out: PathBuf,
}

fn fmt_region(r: &Region) -> String {
    match r {
        Region::Box { min, max } => format!(
            "box:{:e},{:e},{:e},{:e},{:e},{:e}",
            min[0], min[1], min[2], max[0], max[1], max[2]
        ),
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => format!(
            "cylinder:{:e},{:e},{:e},{},{},{},{:e},{:e}",
            center[0], center[1], center[2], axis[0], axis[1], axis[2], radius, length
        ),
    }
}

fn write_csv(path: &Path, header: &str, rows: &[String]) -> Result<(), String> {
    let mut s = String::with_capacity(64 * rows.len() + header.len() + 1);
    s.push_str(header);
    s.push('\n');
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    std::fs::write(path, s).map_err(|e| format!("{}: {e}", path.display()))
}

fn series(label: &str, points: Vec<(f64, f64)>, style: Style) -> Series {
    Series {
        label: label.to_string(),
        points,
        style,
    }
}

impl Ctx {
    fn snapshot(&self) -> Result<(usize, Grains), String> {
        let k = self
            .run
            .pick(self.o.snapshot.as_deref().unwrap_or("last"))?;
        Ok((k, self.run.read(k)?))
    }

    fn at(&self, k: usize, g: &Grains) -> String {
        let clumps = if g.clumps > 0 {
            format!(" ({} clumps of {} spheres in all)", g.clumps, g.rows.len())
        } else {
            String::new()
        };
        format!(
            "snapshot {k} of {}, t = {:.6e} s, {} particles{clumps}",
            self.run.snapshots.len(),
            self.run.time(k),
            g.particles.len()
        )
    }

    fn files(&self, verb: &str) -> (PathBuf, PathBuf) {
        (
            self.out.join(format!("{verb}.csv")),
            self.out.join(format!("{verb}.png")),
        )
    }

    /// `--region`, else the domain box.
    fn region_or_domain(&self, p: &Particles<f64>) -> Region {
        self.o.region.unwrap_or_else(|| {
            let d = self.run.domain(&p.pos_rad);
            Region::Box {
                min: d.min,
                max: d.max,
            }
        })
    }

    fn profile_chart(
        title: &str,
        x_label: &str,
        bins: &[super::fraction::Bin],
        whole: f64,
    ) -> Chart {
        let lo = bins.first().map_or(0.0, |b| b.lo);
        let hi = bins.last().map_or(1.0, |b| b.hi);
        Chart {
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: "solid fraction".into(),
            series: vec![
                series(
                    "bins",
                    bins.iter().map(|b| (b.lo, b.fraction)).collect(),
                    Style::Bars,
                ),
                series("whole region", vec![(lo, whole), (hi, whole)], Style::Line),
            ],
            bar_end: Some(hi),
        }
    }

    fn fraction(&self) -> Result<String, String> {
        let (k, p) = self.snapshot()?;
        let region = self.region_or_domain(&p.rows);
        let (x, w) = (&p.rows.pos_rad, Some(&p.weight[..]));
        let f = solid_fraction_weighted(x, w, &region);
        let bins = layered_profile_weighted(x, w, &region, 20);
        let (csv, png) = self.files("fraction");
        write_csv(
            &csv,
            "region,volume,solid_volume,fraction",
            &[format!(
                "\"{}\",{:e},{:e},{:.12}",
                fmt_region(&region),
                region.volume(),
                f * region.volume(),
                f
            )],
        )?;
        draw(
            &Self::profile_chart(
                &format!("solid fraction {f:.4} (20 layers)"),
                "position along the region's axis (m)",
                &bins,
                f,
            ),
            &png,
        )?;
        Ok(format!(
            "solid fraction {f:.6} in {} ({})\nwrote {} and {}",
            fmt_region(&region),
            self.at(k, &p),
            csv.display(),
            png.display()
        ))
    }

    fn layers(&self) -> Result<String, String> {
        let (k, p) = self.snapshot()?;
        let region = self.region_or_domain(&p.rows);
        let n = self.o.bins.unwrap_or(20);
        let (x, w) = (&p.rows.pos_rad, Some(&p.weight[..]));
        let bins = layered_profile_weighted(x, w, &region, n);
        let whole = solid_fraction_weighted(x, w, &region);
        let (csv, png) = self.files("layers");
        let rows: Vec<String> = bins
            .iter()
            .map(|b| format!("{:e},{:e},{:.12}", b.lo, b.hi, b.fraction))
            .collect();
        write_csv(&csv, "lo,hi,fraction", &rows)?;
        let axis = match region {
            Region::Box { .. } => "z (m)",
            Region::Cylinder { .. } => "distance from the base along the axis (m)",
        };
        draw(
            &Self::profile_chart("solid fraction by layer", axis, &bins, whole),
            &png,
        )?;
        let max = bins.iter().map(|b| b.fraction).fold(0.0, f64::max);
        Ok(format!(
            "{n} layers of {} ({}): whole {whole:.6}, densest layer {max:.6}\nwrote {} and {}",
            fmt_region(&region),
            self.at(k, &p),
            csv.display(),
            png.display()
        ))
    }

    fn radial(&self) -> Result<String, String> {
        let region = match self.o.region {
            Some(r @ Region::Cylinder { .. }) => r,
            _ => {
                return Err(
                    "--region: `analyze radial` needs a cylinder: --region cylinder:cx,cy,cz,ax,ay,az,radius,length"
                        .into(),
                )
            }
        };
        let (k, p) = self.snapshot()?;
        let n = self.o.bins.unwrap_or(10);
        let (x, w) = (&p.rows.pos_rad, Some(&p.weight[..]));
        let bins = radial_profile_weighted(x, w, &region, n);
        let whole = solid_fraction_weighted(x, w, &region);
        let (csv, png) = self.files("radial");
        let rows: Vec<String> = bins
            .iter()
            .map(|b| format!("{:e},{:e},{:.12}", b.lo, b.hi, b.fraction))
            .collect();
        write_csv(&csv, "r_lo,r_hi,fraction", &rows)?;
        draw(
            &Self::profile_chart(
                "solid fraction by ring",
                "distance from the axis (m)",
                &bins,
                whole,
            ),
            &png,
        )?;
        Ok(format!(
            "{n} rings of {} ({}): whole {whole:.6}, axis ring {:.6}, wall ring {:.6}\nwrote {} and {}",
            fmt_region(&region),
            self.at(k, &p),
            bins[0].fraction,
            bins[n - 1].fraction,
            csv.display(),
            png.display()
        ))
    }

    fn coordination(&self) -> Result<String, String> {
        let (k, p) = self.snapshot()?;
        let domain = self.run.domain(&p.rows.pos_rad);
        let rows = find_contacts(&p.rows.pos_rad, &domain)?;
        let contacts = particle_contacts(&rows, &p.owner);
        let min = self.o.min_contacts.unwrap_or(2);
        let c = coordination(
            p.particles.len(),
            &contacts,
            &p.particles.pos_rad,
            self.o.region.as_ref(),
            min,
        );
        let (csv, png) = self.files("coordination");
        let rows: Vec<String> = c
            .histogram
            .iter()
            .enumerate()
            .map(|(z, &n)| {
                format!(
                    "{z},{n},{:.12}",
                    if c.counted > 0 {
                        n as f64 / c.counted as f64
                    } else {
                        0.0
                    }
                )
            })
            .collect();
        write_csv(&csv, "contacts,particles,share", &rows)?;
        let pts: Vec<(f64, f64)> = c
            .histogram
            .iter()
            .enumerate()
            .map(|(z, &n)| (z as f64 - 0.5, n as f64))
            .collect();
        draw(
            &Chart {
                title: format!(
                    "coordination: Z = {:.3}, without rattlers {:.3}",
                    c.mean, c.mean_without_rattlers
                ),
                x_label: "contacts per particle".into(),
                y_label: "particles".into(),
                series: vec![series("", pts, Style::Bars)],
                bar_end: Some(c.histogram.len() as f64 - 0.5),
            },
            &png,
        )?;
        let region = self
            .o
            .region
            .as_ref()
            .map_or("all particles".to_string(), |r| {
                format!("centres in {}", fmt_region(r))
            });
        Ok(format!(
            "{} contacts; {} particles counted ({region}; {}): mean Z = {:.4}; without rattlers (fewer than {min} contacts, removed repeatedly) Z = {:.4} over {} particles\nwrote {} and {}",
            contacts.len(),
            c.counted,
            self.at(k, &p),
            c.mean,
            c.mean_without_rattlers,
            c.non_rattlers,
            csv.display(),
            png.display()
        ))
    }

    fn forces(&self) -> Result<String, String> {
        let scene = self.run.scene.as_ref().ok_or_else(|| {
            format!(
                "{}: `analyze forces` needs the run's scene (for the contact law and materials): summary.json's scene_file must name a file that still loads",
                self.run.dir.display()
            )
        })?;
        let (k, g) = self.snapshot()?;
        let p = &g.rows;
        let found = find_contacts(&p.pos_rad, &self.run.domain(&p.pos_rad))?;
        // a contact a sphere of a particle makes with another's
        let contacts = between_particles(&found, &g.owner);
        let inv_m: Vec<f64> = p.vel_invm.iter().map(|v| v[3]).collect();
        let f = normal_forces(scene, &p.pos_rad, &inv_m, &p.material, &contacts)
            .map_err(|e| format!("{}: {e}", self.run.snapshots[k].1.display()))?;
        if f.is_empty() {
            return Err(format!(
                "{}: no contacts in snapshot {k}: no forces to analyse",
                self.run.snapshots[k].1.display()
            ));
        }
        let n = self.o.bins.unwrap_or(30);
        let h = normalised_histogram(&f, n);
        let mean = f.iter().sum::<f64>() / f.len() as f64;
        let m2 = f.iter().map(|x| x * x).sum::<f64>() / f.len() as f64;
        let max = f.iter().copied().fold(0.0, f64::max);
        let above = f.iter().filter(|&&x| x > mean).count();
        let (csv, png) = self.files("forces");
        let rows: Vec<String> = h
            .iter()
            .map(|b| format!("{:e},{:e},{},{:e}", b.0, b.1, b.2, b.3))
            .collect();
        write_csv(&csv, "f_over_mean_lo,f_over_mean_hi,contacts,pdf", &rows)?;
        let top = h.last().map_or(1.0, |b| b.1);
        let expo: Vec<(f64, f64)> = (0..=100)
            .map(|i| {
                let x = top * i as f64 / 100.0;
                (x, (-x).exp())
            })
            .collect();
        draw(
            &Chart {
                title: format!("normal forces: {} contacts, <f> = {mean:.3e} N", f.len()),
                x_label: "f / <f>".into(),
                y_label: "probability density".into(),
                series: vec![
                    series(
                        "contacts",
                        h.iter().map(|b| (b.0, b.3)).collect(),
                        Style::Bars,
                    ),
                    series("exp(-f/<f>)", expo, Style::Line),
                ],
                bar_end: Some(top),
            },
            &png,
        )?;
        Ok(format!(
            "{} sphere contacts ({}): elastic normal force <f> = {mean:.6e} N, max {:.3} <f>, <f²>/<f>² = {:.4}, {:.1} % above the mean (damping not included)\nwrote {} and {}",
            f.len(),
            self.at(k, &g),
            max / mean,
            m2 / (mean * mean),
            100.0 * above as f64 / f.len() as f64,
            csv.display(),
            png.display()
        ))
    }

    fn flow(&self) -> Result<String, String> {
        let rows = self.run.flow_rows()?;
        if let Some(o) = &self.o.outlet {
            if !rows.iter().any(|r| &r.outlet == o) {
                let mut names: Vec<&str> = rows.iter().map(|r| r.outlet.as_str()).collect();
                names.dedup();
                names.sort_unstable();
                names.dedup();
                return Err(format!(
                    "--outlet: no outlet \"{o}\" in flow.csv (it has {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
            }
        }
        let m = cumulative_mass(&rows, self.o.outlet.as_deref());
        if m.len() < 2 {
            return Err(format!(
                "{}: {} rows: a rate needs at least 2 times",
                self.run.dir.join("flow.csv").display(),
                m.len()
            ));
        }
        let s = steady_rate(&m, self.o.from, self.o.to)?;
        let r = rate(&m);
        let (csv, png) = self.files("flow");
        let rows: Vec<String> = m
            .iter()
            .zip(&r)
            .map(|(a, b)| format!("{:e},{:e},{:e}", a.0, a.1, b.1))
            .collect();
        write_csv(&csv, "t,mass,rate", &rows)?;
        draw(
            &Chart {
                title: format!("discharge: steady rate {:.4e} kg/s", s.rate),
                x_label: "t (s)".into(),
                y_label: "mass rate (kg/s)".into(),
                series: vec![
                    series("dM/dt (centred differences)", r.clone(), Style::Line),
                    series(
                        "steady rate (fit window)",
                        vec![(s.from, s.rate), (s.to, s.rate)],
                        Style::Line,
                    ),
                ],
                bar_end: None,
            },
            &png,
        )?;
        let which = self
            .o
            .outlet
            .as_ref()
            .map_or("all outlets".to_string(), |o| format!("outlet \"{o}\""));
        Ok(format!(
            "{which}: {:.6e} kg removed by t = {:.6e} s; steady rate {:.6e} kg/s (least squares over t in [{:.6e}, {:.6e}] s, {} rows{})\nwrote {} and {}",
            s.total,
            m[m.len() - 1].0,
            s.rate,
            s.from,
            s.to,
            s.points,
            if self.o.from.is_none() && self.o.to.is_none() {
                ": 20 % to 80 % of the final mass"
            } else {
                ""
            },
            csv.display(),
            png.display()
        ))
    }

    fn plane_flow(&self) -> Result<String, String> {
        let at = self
            .o
            .at
            .ok_or("--at: `analyze plane-flow` needs the plane's position along --axis (m)")?;
        let axis = self.o.axis.unwrap_or([0.0, 0.0, -1.0]);
        let from = self.o.from.unwrap_or(f64::NEG_INFINITY);
        let to = self.o.to.unwrap_or(f64::INFINITY);
        let ks: Vec<usize> = (0..self.run.snapshots.len())
            .filter(|&k| self.run.time(k) >= from && self.run.time(k) <= to)
            .collect();
        if ks.len() < 2 {
            return Err(format!(
                "{}: {} snapshots in the time window: plane-flow needs at least 2",
                self.run.dir.join("particles.pvd").display(),
                ks.len()
            ));
        }
        // a clump once, at its centre of mass
        let mut prev = self.run.read(ks[0])?.particles;
        let domain = self.run.domain(&prev.pos_rad);
        let mut fluxes = Vec::new();
        for w in ks.windows(2) {
            let next = self.run.read(w[1])?.particles;
            fluxes.push(plane_flux(
                &prev,
                &next,
                (self.run.time(w[0]), self.run.time(w[1])),
                axis,
                at,
                &domain,
            ));
            prev = next;
        }
        let net: f64 = fluxes.iter().map(|f| f.net()).sum();
        let (t0, t1) = (fluxes[0].t0, fluxes[fluxes.len() - 1].t1);
        let (csv, png) = self.files("plane-flow");
        let rows: Vec<String> = fluxes
            .iter()
            .map(|f| {
                format!(
                    "{:e},{:e},{:e},{:e},{:e},{},{:e}",
                    f.t0,
                    f.t1,
                    f.forward,
                    f.backward,
                    f.net(),
                    f.crossings,
                    f.rate()
                )
            })
            .collect();
        write_csv(&csv, "t0,t1,forward,backward,net,crossings,rate", &rows)?;
        draw(
            &Chart {
                title: format!("mass through the plane: mean {:.4e} kg/s", net / (t1 - t0)),
                x_label: "t (s)".into(),
                y_label: "net rate along the axis (kg/s)".into(),
                series: vec![series(
                    "per interval",
                    fluxes
                        .iter()
                        .map(|f| (0.5 * (f.t0 + f.t1), f.rate()))
                        .collect(),
                    Style::Line,
                )],
                bar_end: None,
            },
            &png,
        )?;
        Ok(format!(
            "plane x·({:.4},{:.4},{:.4}) = {at:e} m: net {net:.6e} kg along the axis over t in [{t0:.6e}, {t1:.6e}] s ({} intervals), mean rate {:.6e} kg/s\nwrote {} and {}",
            axis[0],
            axis[1],
            axis[2],
            fluxes.len(),
            net / (t1 - t0),
            csv.display(),
            png.display()
        ))
    }

    fn velocity(&self) -> Result<String, String> {
        let (k, g) = self.snapshot()?;
        // a clump once, at its centre of mass with its centre's velocity
        let p = &g.particles;
        let axis = self.o.axis.unwrap_or([0.0, 0.0, 1.0]);
        let n = self.o.bins.unwrap_or(20);
        let dot = |q: &[f64; 4]| q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2];
        let inside: Vec<&[f64; 4]> = p
            .pos_rad
            .iter()
            .filter(|q| self.o.region.is_none_or(|r| r.contains([q[0], q[1], q[2]])))
            .collect();
        if inside.is_empty() {
            return Err("--region: no particle centre inside it".into());
        }
        let lo = inside.iter().map(|q| dot(q)).fold(f64::INFINITY, f64::min);
        let mut hi = inside
            .iter()
            .map(|q| dot(q))
            .fold(f64::NEG_INFINITY, f64::max);
        if hi <= lo {
            hi = lo + 1e-12f64.max(lo.abs() * 1e-9);
        }
        let bins = velocity_profile(p, axis, (lo, hi), n, self.o.region.as_ref());
        let (csv, png) = self.files("velocity");
        let rows: Vec<String> = bins
            .iter()
            .map(|b| {
                format!(
                    "{:e},{:e},{},{:e},{:e},{:e},{:e}",
                    b.lo, b.hi, b.count, b.mean[0], b.mean[1], b.mean[2], b.speed
                )
            })
            .collect();
        write_csv(&csv, "lo,hi,particles,vx,vy,vz,speed", &rows)?;
        let filled = || bins.iter().filter(|b| b.count > 0);
        let mid = |b: &super::velocity::VelocityBin| 0.5 * (b.lo + b.hi);
        let mut ser = vec![series(
            "mean speed",
            filled().map(|b| (mid(b), b.speed)).collect(),
            Style::Line,
        )];
        for (d, name) in ["vx", "vy", "vz"].iter().enumerate() {
            ser.push(series(
                name,
                filled().map(|b| (mid(b), b.mean[d])).collect(),
                Style::Line,
            ));
        }
        draw(
            &Chart {
                title: "mean velocity by bin".into(),
                x_label: "position along the axis (m)".into(),
                y_label: "velocity (m/s)".into(),
                series: ser,
                bar_end: None,
            },
            &png,
        )?;
        let counted: usize = bins.iter().map(|b| b.count).sum();
        let fastest = filled().map(|b| b.speed).fold(0.0, f64::max);
        Ok(format!(
            "{n} bins along ({:.4},{:.4},{:.4}) from {lo:.6e} to {hi:.6e} m, {counted} particles ({}): fastest bin's mean speed {fastest:.6e} m/s\nwrote {} and {}",
            axis[0],
            axis[1],
            axis[2],
            self.at(k, &g),
            csv.display(),
            png.display()
        ))
    }

    fn repose(&self) -> Result<String, String> {
        let (k, g) = self.snapshot()?;
        // the surface: every sphere's top (a clump's members too)
        let p = &g.rows;
        let axis = self.o.axis.unwrap_or([0.0, 1.0, 0.0]);
        let n = self.o.bins.unwrap_or(30);
        let trim = self.o.trim.unwrap_or(0.2);
        let slab: Vec<[f64; 4]> = p
            .pos_rad
            .iter()
            .copied()
            .filter(|q| self.o.region.is_none_or(|r| r.contains([q[0], q[1], q[2]])))
            .collect();
        let r = angle_of_repose(&slab, self.run.gravity(), axis, n, trim)?;
        let (csv, png) = self.files("repose");
        let rows: Vec<String> = r
            .surface
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let fit = r
                    .flanks
                    .iter()
                    .find(|f| i >= f.bins.0 && i <= f.bins.1)
                    .map_or(String::new(), |f| {
                        format!("{:e}", f.intercept + f.slope * 0.5 * (b.lo + b.hi))
                    });
                format!("{:e},{:e},{:e},{fit}", b.lo, b.hi, b.top)
            })
            .collect();
        write_csv(&csv, "lo,hi,top,fitted", &rows)?;
        let mut ser = vec![series(
            "highest top per bin",
            r.surface
                .iter()
                .filter(|b| b.top.is_finite())
                .map(|b| (0.5 * (b.lo + b.hi), b.top))
                .collect(),
            Style::Points,
        )];
        for (i, f) in r.flanks.iter().enumerate() {
            let (a, b) = (r.surface[f.bins.0].lo, r.surface[f.bins.1].hi);
            ser.push(series(
                &format!("flank {}: {:.2}°", i + 1, f.angle),
                vec![
                    (a, f.intercept + f.slope * a),
                    (b, f.intercept + f.slope * b),
                ],
                Style::Line,
            ));
        }
        draw(
            &Chart {
                title: format!("angle of repose {:.2}°", r.angle),
                x_label: "position along the surface (m)".into(),
                y_label: "height (m)".into(),
                series: ser,
                bar_end: None,
            },
            &png,
        )?;
        let flanks: Vec<String> = r
            .flanks
            .iter()
            .map(|f| format!("{:.2}° (bins {}–{})", f.angle, f.bins.0, f.bins.1))
            .collect();
        Ok(format!(
            "angle of repose {:.3}° ({} particles in the slab, {}): flanks {}; bins along ({:.4},{:.4},{:.4}), up ({:.4},{:.4},{:.4})\nwrote {} and {}",
            r.angle,
            slab.len(),
            self.at(k, &g),
            flanks.join(", "),
            r.along[0],
            r.along[1],
            r.along[2],
            r.up[0],
            r.up[1],
            r.up[2],
            csv.display(),
            png.display()
        ))
    }

    /// fraction, layers, coordination, forces (with the scene), velocity
    /// and flow (with removals): each that applies, a line each.
    fn all(&self) -> Result<String, String> {
        let mut s = String::new();
        let jobs: [(&str, Verb); 6] = [
            ("fraction", Ctx::fraction),
            ("layers", Ctx::layers),
            ("coordination", Ctx::coordination),
            ("forces", Ctx::forces),
            ("velocity", Ctx::velocity),
            ("flow", Ctx::flow),
        ];
        for (name, f) in jobs {
            match f(self) {
                Ok(r) => {
                    let _ = writeln!(s, "[{name}] {r}");
                }
                Err(e) if name == "forces" || name == "flow" => {
                    let _ = writeln!(s, "[{name}] skipped: {e}");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(s.trim_end().to_string())
    }
}
