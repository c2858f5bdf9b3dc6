//! A user per sandbox: every container runs as a uid and gid of its own, drawn from a
//! configurable range. The kernel keeps some limits per user across the whole host (inotify
//! instances and watches, RLIMIT_NPROC, message-queue bytes): with one shared uid, one sandbox
//! could use them up for every other. Distinct uids also keep signals and `/proc` access apart
//! should two sandboxes ever share a namespace.
//!
//! A gateway never gives one uid to two live containers, and before using a uid it asks the
//! backend whether a container of another gateway carries it (the `code-sandbox-mcp.uid`
//! label; see [`super::container`]).

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use super::error::SandboxError;
use super::random;

/// The default range: a million ids above the ranges Debian gives users, subordinate ids
/// (`useradd` stops at 600,100,000) and systemd-nspawn's containers (up to 1,879,048,191),
/// and below 2^31, which some tools take for negative.
pub const DEFAULT_UIDS: UidRange = UidRange {
    first: 1_900_000_000,
    last: 1_900_999_999,
};

/// An inclusive range of user (and group) ids, written `FIRST-LAST`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UidRange {
    pub first: u32,
    pub last: u32,
}

impl Default for UidRange {
    fn default() -> Self {
        DEFAULT_UIDS
    }
}

impl UidRange {
    pub fn size(&self) -> u64 {
        u64::from(self.last - self.first) + 1
    }

    pub fn contains(&self, uid: u32) -> bool {
        (self.first..=self.last).contains(&uid)
    }
}

impl FromStr for UidRange {
    type Err = String;

    fn from_str(text: &str) -> Result<UidRange, String> {
        let parse = |part: &str| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{text}`: `{part}` is not a user id"))
        };
        let (first, last) = text
            .split_once('-')
            .ok_or_else(|| format!("`{text}`: expected FIRST-LAST, e.g. 1900000000-1900999999"))?;
        let range = UidRange {
            first: parse(first)?,
            last: parse(last)?,
        };
        if range.first == 0 || range.first > range.last || range.last >= i32::MAX as u32 {
            return Err(format!(
                "`{text}`: the range must start above 0 (root), end at or after its start, and stay below 2^31 - 1"
            ));
        }
        if range.size() < 16 {
            return Err(format!(
                "`{text}`: {} ids is too few; each warm and running container needs one",
                range.size()
            ));
        }
        Ok(range)
    }
}

impl fmt::Display for UidRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

/// The ids of one gateway's live containers.
pub struct UidPool {
    range: UidRange,
    in_use: Mutex<HashSet<u32>>,
}

/// One container's uid; it returns to the pool when dropped (after the container is gone).
pub struct UidLease {
    pub uid: u32,
    pool: Arc<UidPool>,
}

impl Drop for UidLease {
    fn drop(&mut self) {
        self.pool.lock().remove(&self.uid);
    }
}

/// Draws this many candidates before giving up (a nearly full range, or an engine whose
/// containers carry the labels of many other gateways).
const DRAWS: usize = 32;

impl UidPool {
    pub fn new(range: UidRange) -> Arc<UidPool> {
        Arc::new(UidPool {
            range,
            in_use: Mutex::new(HashSet::new()),
        })
    }

    pub fn range(&self) -> UidRange {
        self.range
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<u32>> {
        self.in_use.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A uid no live container of this gateway uses and for which `held_elsewhere` (asking
    /// the backend whether a container carries it) says no.
    pub async fn lease<Held>(
        self: &Arc<Self>,
        held_elsewhere: impl Fn(u32) -> Held,
    ) -> Result<UidLease, SandboxError>
    where
        Held: Future<Output = Result<bool, SandboxError>>,
    {
        // Ids another gateway's container carries stay reserved here until the loop ends, so
        // the next draw differs.
        let mut taken_elsewhere = Vec::new();
        for _ in 0..DRAWS {
            let Some(lease) = self.draw() else { break };
            if !held_elsewhere(lease.uid).await? {
                return Ok(lease);
            }
            taken_elsewhere.push(lease);
        }
        Err(SandboxError::EngineSetup {
            detail: format!("no free user id left in the range {}", self.range),
            hint: "give a larger range with --sandbox-uids FIRST-LAST (each warm or running container needs its own id)",
        })
    }

    /// A random id of the range not in use here, reserved; `None` when all are in use.
    fn draw(self: &Arc<Self>) -> Option<UidLease> {
        let mut in_use = self.lock();
        let len = self.range.size();
        // From a random start, the first free id: the start is almost always free, since a
        // gateway holds a few dozen ids of a range of many.
        let start = random::below(len);
        let uid = (0..len)
            .map(|step| self.range.first + ((start + step) % len) as u32)
            .find(|uid| !in_use.contains(uid))?;
        in_use.insert(uid);
        Some(UidLease {
            uid,
            pool: Arc::clone(self),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_and_print_back() {
        let range: UidRange = "100000-100015".parse().unwrap();
        assert_eq!(
            (range.first, range.last, range.size()),
            (100000, 100015, 16)
        );
        assert_eq!(range.to_string(), "100000-100015");
        assert_eq!(
            DEFAULT_UIDS.to_string().parse::<UidRange>(),
            Ok(DEFAULT_UIDS)
        );
        for bad in ["", "5", "a-b", "0-100", "200-100", "1-4", "10-4294967295"] {
            assert!(bad.parse::<UidRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn leases_are_distinct_and_come_back() {
        let pool = UidPool::new("1000-1015".parse().unwrap());
        let leases: Vec<UidLease> = (0..16).map(|_| pool.draw().unwrap()).collect();
        let uids: HashSet<u32> = leases.iter().map(|l| l.uid).collect();
        assert_eq!(uids.len(), 16);
        assert!(uids.iter().all(|&u| pool.range().contains(u)));
        assert!(pool.draw().is_none(), "the range is used up");
        drop(leases);
        assert!(pool.draw().is_some(), "dropped leases return");
    }
}
