//! FNV-1a (64-bit): the one digest written into the engine's files and
//! signatures (a depth file's blocks and its link to the file before, a
//! run's identity, the log's mark in the manifest, the bench's signature).
//!
//! Fixed and unseeded, so the same on every machine and build, as a
//! digest stored on disk must be; it is not a defence against tampering,
//! only against a torn, truncated or foreign file. One byte at a time: at
//! the sizes it digests (a log, a block's checksum input, a settings
//! string) it is never the bottleneck.

/// FNV-1a's starting value (the digest of no bytes).
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a's prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a of `bytes`, continued from `h` ([`FNV_OFFSET`] to start), so a
/// digest can be taken over several pieces.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_vectors_and_continues() {
        // The reference values of the FNV-1a 64-bit test suite.
        assert_eq!(fnv1a(FNV_OFFSET, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(FNV_OFFSET, b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(
            fnv1a(fnv1a(FNV_OFFSET, b"foo"), b"bar"),
            fnv1a(FNV_OFFSET, b"foobar")
        );
    }
}
