//! The number types of the document model: [`Real`], a finite `f32` that refuses NaN,
//! infinities and numbers outside the `f32` range while parsing, and its arrays.

use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A finite `f32`. JSON numbers outside the `f32` range (or strings such as `"NaN"`) are
/// rejected while parsing, with the line and column of the number.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Real(f32);

impl Real {
    /// `Some` for a finite value.
    pub fn new(x: f32) -> Option<Real> {
        x.is_finite().then_some(Real(x))
    }

    /// For literal constants of the document model (always finite).
    pub(crate) const fn lit(x: f32) -> Real {
        Real(x)
    }

    /// The value.
    pub fn get(self) -> f32 {
        self.0
    }
}

impl Serialize for Real {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f32(self.0)
    }
}

impl<'de> Deserialize<'de> for Real {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        let v = f64::deserialize(d)?;
        let f = v as f32;
        if !v.is_finite() || !f.is_finite() {
            return Err(D::Error::invalid_value(
                Unexpected::Float(v),
                &"a finite number within the range of f32 (about ±3.4e38)",
            ));
        }
        Ok(Real(f))
    }
}

/// Three reals (a point, vector or RGB colour).
pub type Real3 = [Real; 3];
/// Four reals (an RGBA colour or a quaternion `x, y, z, w`).
pub type Real4 = [Real; 4];

pub(crate) const fn r3(x: f32, y: f32, z: f32) -> Real3 {
    [Real(x), Real(y), Real(z)]
}

pub(crate) const fn r4(x: f32, y: f32, z: f32, w: f32) -> Real4 {
    [Real(x), Real(y), Real(z), Real(w)]
}

/// A number as written: exactly this `f32` (see [`Real`]).
pub(crate) fn re(x: f32) -> Real {
    Real::lit(x)
}

/// A vector as written.
pub(crate) fn re3(v: glam::Vec3) -> Real3 {
    [re(v.x), re(v.y), re(v.z)]
}

/// A 4-vector or colour as written.
pub(crate) fn re4(v: glam::Vec4) -> Real4 {
    [re(v.x), re(v.y), re(v.z), re(v.w)]
}
