//! `[contact]`: the keys each model uses, and positive stiffness or
//! contact time for the linear model.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{ContactModel, Scene};

pub(super) fn check_contact(s: &Scene) -> Result<(), SceneError> {
    let c = &s.contact;
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
