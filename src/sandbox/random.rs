//! Randomness from the operating system, for nonces and for drawing sandbox user ids.

use std::io::Read;

/// `N` random bytes from `/dev/urandom`, or, where it cannot be read, from the process's
/// randomly keyed hasher (still unguessable from inside a container).
pub fn bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if filled.is_err() {
        use std::hash::{BuildHasher, RandomState};
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let value = RandomState::new().hash_one((i, std::time::SystemTime::now()));
            chunk.copy_from_slice(&value.to_le_bytes()[..chunk.len()]);
        }
    }
    bytes
}

/// A random number below `bound` (which must be positive).
pub fn below(bound: u64) -> u64 {
    // 64 random bits reduced modulo a bound of at most 2^32: the bias is below 2^-32.
    u64::from_le_bytes(bytes::<8>()) % bound
}

/// A fresh nonce: 32 lowercase hex digits.
pub fn nonce() -> String {
    bytes::<16>().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_are_fresh_hex() {
        let (a, b) = (nonce(), nonce());
        assert_eq!(a.len(), 32);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
    }

    #[test]
    fn draws_stay_below_the_bound() {
        assert!((0..1000).all(|_| below(7) < 7));
        assert_eq!(below(1), 0);
    }
}
