//! The static cost bound of a path: `[min, max]` per dimension, as the
//! compiler stores it in a module and `tissvm estimate` computes it.

use super::{Dim, PerDim};

/// A `[min, max]` bound per cost dimension, indexed in `Dim::ALL` order.
/// Execution time is in milliseconds. Arithmetic saturates. Serialized
/// compactly (`cost_bound_serde`): most dimensions of most bounds are zero or
/// exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CostBound {
    pub min: PerDim<u64>,
    pub max: PerDim<u64>,
}

impl CostBound {
    pub const ZERO: CostBound = CostBound { min: PerDim::new([0; 5]), max: PerDim::new([0; 5]) };

    pub fn get(&self, dim: Dim) -> (u64, u64) {
        (self.min[dim], self.max[dim])
    }

    /// One path after the other.
    pub fn then(&self, other: &CostBound) -> CostBound {
        let mut out = *self;
        for d in Dim::ALL {
            out.min[d] = out.min[d].saturating_add(other.min[d]);
            out.max[d] = out.max[d].saturating_add(other.max[d]);
        }
        out
    }

    /// One of two paths.
    pub fn either(&self, other: &CostBound) -> CostBound {
        let mut out = *self;
        for d in Dim::ALL {
            out.min[d] = out.min[d].min(other.min[d]);
            out.max[d] = out.max[d].max(other.max[d]);
        }
        out
    }

    /// Adds an exact amount to one dimension.
    pub fn add(&mut self, dim: Dim, amount: u64) {
        self.min[dim] = self.min[dim].saturating_add(amount);
        self.max[dim] = self.max[dim].saturating_add(amount);
    }

    /// Adds `[min, max]` to one dimension.
    pub fn add_range(&mut self, dim: Dim, min: u64, max: u64) {
        self.min[dim] = self.min[dim].saturating_add(min);
        self.max[dim] = self.max[dim].saturating_add(max);
    }
}

/// A [`CostBound`] as a sequence: a mask (bit `i`: `max[i]` is not zero; bit
/// `5 + i`: `min[i]` differs from `max[i]`), then for each dimension in order
/// its `max` if not zero and its `min` if it differs.
mod cost_bound_serde {
    use super::{CostBound, Dim};
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for CostBound {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut mask = 0u64;
            for (i, d) in Dim::ALL.into_iter().enumerate() {
                mask |= u64::from(self.max[d] != 0) << i | u64::from(self.min[d] != self.max[d]) << (5 + i);
            }
            let mut seq = s.serialize_seq(Some(1 + mask.count_ones() as usize))?;
            seq.serialize_element(&mask)?;
            for d in Dim::ALL {
                if self.max[d] != 0 {
                    seq.serialize_element(&self.max[d])?;
                }
                if self.min[d] != self.max[d] {
                    seq.serialize_element(&self.min[d])?;
                }
            }
            seq.end()
        }
    }

    impl<'de> Deserialize<'de> for CostBound {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CostBound, D::Error> {
            struct Masked;
            impl<'de> Visitor<'de> for Masked {
                type Value = CostBound;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a cost bound")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CostBound, A::Error> {
                    let missing = || Error::custom("a cost bound ends early");
                    let mask: u64 = seq.next_element()?.ok_or_else(missing)?;
                    if mask >> 10 != 0 {
                        return Err(Error::custom(format!("cost bound mask {mask:#x} has unknown bits")));
                    }
                    let mut bound = CostBound::ZERO;
                    for (i, d) in Dim::ALL.into_iter().enumerate() {
                        if mask & 1 << i != 0 {
                            bound.max[d] = seq.next_element()?.ok_or_else(missing)?;
                        }
                        bound.min[d] = bound.max[d];
                        if mask & 1 << (5 + i) != 0 {
                            bound.min[d] = seq.next_element()?.ok_or_else(missing)?;
                        }
                    }
                    if seq.next_element::<u64>()?.is_some() {
                        return Err(Error::custom("a cost bound has extra values"));
                    }
                    Ok(bound)
                }
            }
            d.deserialize_seq(Masked)
        }
    }
}
