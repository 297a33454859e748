//! The scorer's own hashing: FNV-1a for feature buckets and a map hasher for its tables.

use std::collections::HashMap;

/// FNV-1a of `bytes`, going on from the state `h`.
pub(super) fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The hasher of the scorer's own maps: a bucket index (a hash already) is spread by one
/// multiplication, a word hashed by FNV-1a. The maps are keyed by bucket indices, bounded by
/// the model's size, or hold a fixed table of words that a diff only looks up, so SipHash's
/// defence against chosen keys would buy little and costs start-up time.
#[derive(Default)]
pub(super) struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv(self.0, bytes);
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map with [`QuickHasher`].
pub(super) type QuickMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<QuickHasher>>;
