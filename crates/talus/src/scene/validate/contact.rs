//! `[contact]`: the keys each model uses, and positive stiffness or
//! contact time for the linear model.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{ContactModel, Scene};

pub(super) fn check_contact(s: &Scene) -> Result<(), SceneError> {
    let c = &s.contact;
    if c.cohesion == crate::scene::types::Cohesion::Jkr && c.model != ContactModel::HertzMindlin {
        return Err(s.error(
            "contact.cohesion",
            "\"jkr\" needs model = \"hertz_mindlin\" (JKR's force is Hertz's less the adhesion's, for the same elastic spheres)",
        ));
    }
    match c.model {
        ContactModel::HertzMindlin => {
            for (key, v) in [("stiffness", c.stiffness), ("contact_time", c.contact_time)] {
                if v.is_some() {
                    return Err(s.error(
                        &format!("contact.{key}"),
                        "only used by model = \"linear\" (Hertz–Mindlin stiffness follows from the materials)",
                    ));
                }
            }
        }
        ContactModel::Linear => {
            match (c.stiffness, c.contact_time) {
                (Some(_), Some(_)) => {
                    return Err(s.error(
                        "contact",
                        "give either stiffness or contact_time for the linear model, not both",
                    ))
                }
                (None, None) => return Err(s.error(
                    "contact.stiffness",
                    "missing key: the linear model needs stiffness = <N/m> or contact_time = <s>",
                )),
                (Some(k), None) if !(k > 0.0) => {
                    return Err(s.error(
                        "contact.stiffness",
                        format!("expected a stiffness > 0 N/m, got {k}"),
                    ))
                }
                (None, Some(t)) if !(t > 0.0) => {
                    return Err(s.error(
                        "contact.contact_time",
                        format!("expected a contact time > 0 s, got {t}"),
                    ))
                }
                _ => {}
            }
            if !(c.tangential_stiffness_ratio >= 0.0) {
                return Err(s.error(
                    "contact.tangential_stiffness_ratio",
                    format!(
                        "expected a ratio >= 0, got {}",
                        c.tangential_stiffness_ratio
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A JKR contact holds past touching, up to the pair's separation: the
/// neighbour list's skin must reach past it, or a held pair could drop out
/// of the list while still pulling. Run after the materials' checks.
pub(super) fn check_jkr_reach(s: &Scene) -> Result<(), SceneError> {
    let reach = crate::pair::PairTable::new(s).jkr_reach(s);
    let skin = s.skin();
    if reach > 0.0 && !(skin > reach) {
        return Err(s.error(
            "simulation.neighbour_skin",
            format!(
                "the skin ({}{skin:e} m) must exceed JKR's reach, {reach:.4e} m: a contact holds until its surfaces are that far apart (raise neighbour_skin)",
                if s.simulation.neighbour_skin.is_none() { "auto: " } else { "" }
            ),
        ));
    }
    Ok(())
}
