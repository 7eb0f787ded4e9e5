//! What decoding may allocate: every collection a `.tbc` or a snapshot
//! decodes into is bounded by the size of the file before it is allocated
//! (book: reference/snapshots.md).
//!
//! bincode states each collection's length and then its elements, and what
//! an element takes in memory is not what it takes in the file: a cost
//! bound of one byte decodes to 80 bytes, a step's entry of six to 104, an
//! empty variable slot of one to 24. Bounding lengths by the bytes left
//! would still let a file decode to 80 times its size. So each collection
//! claims what it will take in memory — its stated length times its
//! element's size — from a budget of [`MEMORY_PER_BYTE`] bytes per byte of
//! the payload being decoded, plus [`MEMORY_BASE`], before anything is
//! allocated, and is then allocated at exactly that length (no doubling).
//! A claim over the budget stops decoding with an error in words. Compiled
//! plans claim 1.0 to 1.7 bytes per byte of payload, and at most 4.3 (a
//! plan of nothing but empty steps, each a 104-byte entry and two
//! instructions for about 34 bytes of file), so the budget only refuses
//! files built to amplify.
//!
//! Strings need no claim: bincode reads them from the payload, so their
//! text is never more than the bytes present, and each sits in a claimed
//! collection or boxed value that is larger than a small string's
//! allocation. Where a format says more than bytes can (a snapshot's slots
//! cannot outnumber its bytecode's), the caller checks that too.
//!
//! The budget is per thread and lasts for [`within`]: serde's derived
//! `Deserialize` gives a field's decoder no context to carry it in.
//! Outside [`within`] nothing is bounded (tests that round-trip a part).

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Deserializer, Error, SeqAccess, Visitor};

#[doc(hidden)]
pub use serde as __serde;

/// Bytes of memory decoding may claim per byte of payload: twice what the
/// compiled plan that decodes largest per byte needs (a plan of nothing but
/// empty steps, 4.3; most plans 1.0 to 1.7).
pub const MEMORY_PER_BYTE: u64 = 8;

/// Bytes of memory decoding may claim whatever the payload's size.
pub const MEMORY_BASE: u64 = 1 << 20;

#[derive(Clone, Copy)]
struct Budget {
    payload: u64,
    left: u64,
}

thread_local! {
    static BUDGET: Cell<Option<Budget>> = const { Cell::new(None) };
}

/// The most that decoding a payload of `len` bytes may claim.
pub fn limit(len: usize) -> u64 {
    MEMORY_PER_BYTE.saturating_mul(len as u64).saturating_add(MEMORY_BASE)
}

/// Runs `decode` with the budget of a payload of `len` bytes. A decoding
/// inside it (a snapshot's bytecode) has its own budget, and the outer one
/// is back when it ends.
pub fn within<T>(len: usize, decode: impl FnOnce() -> T) -> T {
    within_measured(len, decode).0
}

/// [`within`], also giving how many bytes `decode` claimed (what tests and
/// measurements compare with the payload's size).
pub fn within_measured<T>(len: usize, decode: impl FnOnce() -> T) -> (T, u64) {
    struct Restore(Option<Budget>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUDGET.set(self.0);
        }
    }
    let _restore = Restore(BUDGET.replace(Some(Budget { payload: len as u64, left: limit(len) })));
    let value = decode();
    let left = BUDGET.get().map_or(0, |b| b.left);
    (value, limit(len) - left)
}

/// `n` with a comma between each group of three digits.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Claims the memory of `count` values of `size` bytes, `what` naming them
/// ("cost estimates"). Each value takes at least one byte of the payload,
/// so `count` cannot be more than its length either.
pub fn claim(count: usize, size: usize, what: &str) -> Result<(), String> {
    let Some(mut budget) = BUDGET.get() else { return Ok(()) };
    let count = count as u64;
    if count > budget.payload {
        return Err(format!(
            "it claims {} {what}, more than its {}-byte payload can hold",
            thousands(count),
            thousands(budget.payload)
        ));
    }
    let bytes = count.saturating_mul(size as u64);
    if bytes > budget.left {
        let total = limit(budget.payload as usize);
        return Err(format!(
            "it claims {} {what}, {} bytes in memory: a {}-byte payload may decode to {} bytes at most \
             ({MEMORY_PER_BYTE} per byte, plus {} MiB), and {} are left",
            thousands(count),
            thousands(bytes),
            thousands(budget.payload),
            thousands(total),
            MEMORY_BASE >> 20,
            thousands(budget.left)
        ));
    }
    budget.left -= bytes;
    BUDGET.set(Some(budget));
    Ok(())
}

/// Decodes a `Vec<T>` of `what`: `check` sees the stated length first (a
/// format's own bound), then the memory is claimed, then the vector is
/// allocated at exactly that length.
pub struct VecSeed<T, F> {
    what: &'static str,
    check: F,
    element: PhantomData<fn() -> T>,
}

impl<T> VecSeed<T, fn(usize) -> Result<(), String>> {
    pub fn new(what: &'static str) -> Self {
        VecSeed { what, check: |_| Ok(()), element: PhantomData }
    }
}

impl<T, F: FnOnce(usize) -> Result<(), String>> VecSeed<T, F> {
    /// The same, with `check` refusing a length the format does not allow.
    pub fn checked(what: &'static str, check: F) -> Self {
        VecSeed { what, check, element: PhantomData }
    }
}

impl<'de, T: serde::Deserialize<'de>, F: FnOnce(usize) -> Result<(), String>> DeserializeSeed<'de>
    for VecSeed<T, F>
{
    type Value = Vec<T>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: serde::Deserialize<'de>, F: FnOnce(usize) -> Result<(), String>> Visitor<'de> for VecSeed<T, F> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of {}", self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        // bincode states every length, so the claim comes before any element.
        let stated = seq.size_hint().unwrap_or(0);
        (self.check)(stated).map_err(A::Error::custom)?;
        let size = std::mem::size_of::<T>();
        claim(stated, size, self.what).map_err(A::Error::custom)?;
        let mut out = Vec::with_capacity(stated);
        while let Some(element) = seq.next_element()? {
            if out.len() == stated {
                // A format that states no length: claimed as it comes.
                claim(1, size, self.what).map_err(A::Error::custom)?;
            }
            out.push(element);
        }
        Ok(out)
    }
}

/// [`VecSeed`] as a `#[serde(deserialize_with)]` function's body.
pub fn vec<'de, D: Deserializer<'de>, T: serde::Deserialize<'de>>(
    d: D,
    what: &'static str,
) -> Result<Vec<T>, D::Error> {
    VecSeed::new(what).deserialize(d)
}

/// `#[serde(deserialize_with = "…")]` functions for bounded vectors, one per
/// name, each naming what its vector holds in the errors:
/// `bounded_vecs! { steps: "steps", … }`.
#[macro_export]
macro_rules! bounded_vecs {
    ($($name:ident: $what:literal),* $(,)?) => {$(
        pub fn $name<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
        where
            D: $crate::codec::decode_budget::__serde::Deserializer<'de>,
            T: $crate::codec::decode_budget::__serde::Deserialize<'de>,
        {
            $crate::codec::decode_budget::vec(d, $what)
        }
    )*};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_bounded_by_the_payload_and_the_budget() {
        assert_eq!(claim(usize::MAX, 1000, "things"), Ok(()), "nothing is bounded outside `within`");
        within(1000, || {
            let e = claim(1001, 1, "cost estimates").unwrap_err();
            assert_eq!(e, "it claims 1,001 cost estimates, more than its 1,000-byte payload can hold");
            assert_eq!(claim(1000, 1000, "steps"), Ok(()), "1,000,000 bytes of 1,056,576");
            let e = claim(1000, 100, "steps").unwrap_err();
            assert!(
                e.starts_with("it claims 1,000 steps, 100,000 bytes in memory: a 1,000-byte payload"),
                "{e}"
            );
            assert!(e.ends_with("and 56,576 are left"), "{e}");
            within(10, || assert!(claim(11, 1, "x").is_err(), "the inner budget"));
            let ((), claimed) = within_measured(10, || claim(3, 7, "x").unwrap());
            assert_eq!(claimed, 21);
            assert_eq!(claim(52, 1000, "steps"), Ok(()), "the outer budget is back");
            assert!(claim(1, 4577, "step").is_err());
            assert_eq!(claim(1, 4576, "step"), Ok(()));
        });
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(10_000_000), "10,000,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }
}
