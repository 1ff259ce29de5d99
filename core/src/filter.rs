//! Pieces shared by the membership filters (Bloom, split-block Bloom).

/// Bitmask telling whether a filter is past what it was planned for.
///
/// The seeds' worst anti-pattern is silent overfill: a filter planned for
/// 100,000 items that receives 1,000,000 answers "maybe" to 99.5% of absent
/// keys. Every filter reports these flags from a cheap (O(1)) call.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CapacityFlags(pub u32);

impl CapacityFlags {
    /// More items were inserted (adds that changed the filter) than planned.
    pub const OVER_PLANNED_ITEMS: u32 = 1;
    /// The estimated current false-positive rate exceeds twice the planned one.
    pub const FPR_ABOVE_TWICE_PLANNED: u32 = 2;

    /// Builds the flags from the inserted count and the estimated FPR.
    pub fn evaluate(inserted: u64, planned_items: u64, estimated_fpr: f64, planned_fpr: f64) -> Self {
        let mut bits = 0;
        if inserted > planned_items {
            bits |= Self::OVER_PLANNED_ITEMS;
        }
        if estimated_fpr > 2.0 * planned_fpr {
            bits |= Self::FPR_ABOVE_TWICE_PLANNED;
        }
        CapacityFlags(bits)
    }

    /// True when no flag is set: the filter is within its plan.
    pub const fn is_within_plan(self) -> bool {
        self.0 == 0
    }

    /// True when the inserted count exceeds the planned item count.
    pub const fn over_planned_items(self) -> bool {
        self.0 & Self::OVER_PLANNED_ITEMS != 0
    }

    /// True when the estimated FPR exceeds twice the planned FPR.
    pub const fn fpr_above_twice_planned(self) -> bool {
        self.0 & Self::FPR_ABOVE_TWICE_PLANNED != 0
    }
}

/// Checks a target false-positive rate: finite and strictly between 0 and 1.
pub(crate) fn valid_fpr(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

/// Counts the set bits of `bytes`, 8 bytes at a time.
pub(crate) fn count_ones(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut total: u64 = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        total += u64::from(u64::from_le_bytes(word).count_ones());
    }
    for b in chunks.remainder() {
        total += u64::from(b.count_ones());
    }
    total
}

/// `dst |= src`, byte-wise (vectorized by the compiler).
pub(crate) fn or_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= *s;
    }
}

/// `dst &= src`, byte-wise (vectorized by the compiler).
pub(crate) fn and_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d &= *s;
    }
}
