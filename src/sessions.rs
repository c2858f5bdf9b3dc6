//! The session table: which sessions are open, whose they are, and when they expire.
//!
//! A session is a container kept for one client between calls (the state it holds is the
//! caller's type `T`). This module only keeps the books, with the time passed in, so its rules
//! are tested without waiting: ids are 128 random bits; a session is found only by the client
//! that opened it, and a foreign id reads exactly like an unknown one; it expires after an
//! idle time or at its maximum lifetime, whichever comes first; at most `max` are open (or
//! being opened) at once. A session that ended leaves a short note, for its owner only, so a
//! call to it says why it is gone (expired, timed out, out of memory) instead of "no such".

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::analysis::Language;
use crate::identity::ClientKey;

/// Default for `--session-idle-timeout`.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(10 * 60);
/// Default for `--session-max-lifetime`.
pub const DEFAULT_LIFETIME: Duration = Duration::from_secs(60 * 60);
/// Default for `--max-sessions`.
pub const DEFAULT_MAX: usize = 8;
/// Ended sessions remembered, to say why one is gone.
const ENDED_KEPT: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session unused this long is closed.
    pub idle: Duration,
    /// A session is closed this long after it opened, however busy.
    pub lifetime: Duration,
    /// Sessions open at once, across clients.
    pub max: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            idle: DEFAULT_IDLE,
            lifetime: DEFAULT_LIFETIME,
            max: DEFAULT_MAX,
        }
    }
}

/// Why a session cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// Unknown, or another client's: the same answer for both.
    #[error(
        "no such session `{0}` (open one with open_session; a session is usable only by the client that opened it)"
    )]
    NoSuch(String),
    #[error("the session `{id}` has ended: {why}. Open a new one with open_session.")]
    Ended { id: String, why: String },
    #[error(
        "{max} sessions are open, the server's limit (--max-sessions); close one with close_session, or wait for one to expire"
    )]
    Full { max: usize },
}

/// What a client sees of one of its sessions.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct SessionInfo {
    pub session_id: String,
    pub language: Language,
    /// RFC 3339, UTC.
    pub opened_at: String,
    /// When it closes unless used again (idle timeout, or the maximum lifetime): RFC 3339.
    pub expires_at: String,
    /// Calls made in it so far.
    pub calls: u64,
}

struct Entry<T> {
    owner: ClientKey,
    language: Language,
    opened: Instant,
    opened_wall: SystemTime,
    last_used: Instant,
    calls: u64,
    /// Calls under way: a session is not idle while one runs.
    busy: usize,
    state: Arc<T>,
}

struct Ended {
    id: String,
    owner: ClientKey,
    why: String,
}

pub struct Table<T> {
    limits: SessionLimits,
    open: HashMap<String, Entry<T>>,
    /// Sessions being opened (their containers starting): they count against `max`.
    opening: usize,
    ended: VecDeque<Ended>,
}

/// A place among the `max` sessions, held while a session's container starts.
#[must_use]
pub struct Reservation(());

impl<T> Table<T> {
    pub fn new(limits: SessionLimits) -> Table<T> {
        Table {
            limits,
            open: HashMap::new(),
            opening: 0,
            ended: VecDeque::new(),
        }
    }

    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// Holds a place for a session about to open, or says the table is full.
    pub fn reserve(&mut self) -> Result<Reservation, SessionError> {
        if self.open.len() + self.opening >= self.limits.max {
            return Err(SessionError::Full {
                max: self.limits.max,
            });
        }
        self.opening += 1;
        Ok(Reservation(()))
    }

    /// Gives a place back (the session could not open).
    pub fn release(&mut self, _reservation: Reservation) {
        self.opening -= 1;
    }

    /// Opens a session in a reserved place; returns its new id.
    pub fn insert(
        &mut self,
        _reservation: Reservation,
        owner: ClientKey,
        language: Language,
        state: T,
        now: Instant,
    ) -> String {
        self.opening -= 1;
        let id = crate::sandbox::random::nonce();
        self.open.insert(
            id.clone(),
            Entry {
                owner,
                language,
                opened: now,
                opened_wall: SystemTime::now(),
                last_used: now,
                calls: 0,
                busy: 0,
                state: Arc::new(state),
            },
        );
        id
    }

    /// The session `id` of `owner`, counting a call in it, which holds off the idle timeout
    /// until [`Table::done`]. One found expired ends here.
    pub fn use_session(
        &mut self,
        id: &str,
        owner: &ClientKey,
        now: Instant,
    ) -> Result<(Language, Arc<T>), SessionError> {
        if let Some(why) = self.open.get(id).and_then(|e| self.expiry(e, now)) {
            self.end(id, &why);
        }
        match self.open.get_mut(id) {
            Some(entry) if entry.owner == *owner => {
                entry.last_used = now;
                entry.calls += 1;
                entry.busy += 1;
                Ok((entry.language, Arc::clone(&entry.state)))
            }
            Some(_) => Err(SessionError::NoSuch(id.to_owned())),
            None => Err(self.gone(id, owner)),
        }
    }

    /// Marks the end of a call that [`Table::use_session`] counted (the idle time counts from
    /// here).
    pub fn done(&mut self, id: &str, now: Instant) {
        if let Some(entry) = self.open.get_mut(id) {
            entry.last_used = now;
            entry.busy = entry.busy.saturating_sub(1);
        }
    }

    /// Closes `owner`'s session `id`; its language and state are returned (the state for the
    /// caller to drop).
    pub fn close(
        &mut self,
        id: &str,
        owner: &ClientKey,
    ) -> Result<(Language, Arc<T>), SessionError> {
        match self.open.get(id) {
            Some(entry) if entry.owner == *owner => {
                let language = entry.language;
                let state = self.end(id, "closed by close_session").expect("present");
                Ok((language, state))
            }
            Some(_) => Err(SessionError::NoSuch(id.to_owned())),
            None => Err(self.gone(id, owner)),
        }
    }

    /// Ends a session for a reason its owner will be told (a timeout, an OOM kill).
    pub fn end(&mut self, id: &str, why: &str) -> Option<Arc<T>> {
        let entry = self.open.remove(id)?;
        if self.ended.len() == ENDED_KEPT {
            self.ended.pop_front();
        }
        self.ended.push_back(Ended {
            id: id.to_owned(),
            owner: entry.owner,
            why: why.to_owned(),
        });
        Some(entry.state)
    }

    /// Ends every expired session; returns their states for the caller to drop.
    pub fn expire(&mut self, now: Instant) -> Vec<Arc<T>> {
        let expired: Vec<(String, String)> = self
            .open
            .iter()
            .filter_map(|(id, e)| self.expiry(e, now).map(|why| (id.clone(), why)))
            .collect();
        expired
            .into_iter()
            .filter_map(|(id, why)| self.end(&id, &why))
            .collect()
    }

    /// Ends every session (the server is stopping).
    pub fn drain(&mut self) -> Vec<Arc<T>> {
        self.open.drain().map(|(_, e)| e.state).collect()
    }

    /// `owner`'s open sessions, oldest first.
    pub fn list(&self, owner: &ClientKey, now: Instant) -> Vec<SessionInfo> {
        let mut mine: Vec<(&String, &Entry<T>)> = self
            .open
            .iter()
            .filter(|(_, e)| e.owner == *owner)
            .collect();
        mine.sort_by_key(|(_, e)| e.opened);
        mine.into_iter()
            .map(|(id, e)| SessionInfo {
                session_id: id.clone(),
                language: e.language,
                opened_at: rfc3339(e.opened_wall),
                expires_at: self.expires_at(id, now).unwrap_or_default(),
                calls: e.calls,
            })
            .collect()
    }

    /// When session `id` expires unless used again, as RFC 3339.
    pub fn expires_at(&self, id: &str, now: Instant) -> Option<String> {
        let entry = self.open.get(id)?;
        let left = self.deadline(entry).saturating_duration_since(now);
        Some(rfc3339(SystemTime::now() + left))
    }

    /// Sessions open.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    fn deadline(&self, entry: &Entry<T>) -> Instant {
        (entry.last_used + self.limits.idle).min(entry.opened + self.limits.lifetime)
    }

    fn expiry(&self, entry: &Entry<T>, now: Instant) -> Option<String> {
        if now >= entry.opened + self.limits.lifetime {
            Some(format!(
                "it reached the maximum lifetime of {}",
                humantime::format_duration(self.limits.lifetime)
            ))
        } else if entry.busy == 0 && now >= entry.last_used + self.limits.idle {
            Some(format!(
                "it expired after {} without a call",
                humantime::format_duration(self.limits.idle)
            ))
        } else {
            None
        }
    }

    /// The error for an id that is not open: why it ended, told only to its owner.
    fn gone(&self, id: &str, owner: &ClientKey) -> SessionError {
        match self
            .ended
            .iter()
            .rev()
            .find(|e| e.id == id && e.owner == *owner)
        {
            Some(e) => SessionError::Ended {
                id: id.to_owned(),
                why: e.why.clone(),
            },
            None => SessionError::NoSuch(id.to_owned()),
        }
    }
}

fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn table(max: usize) -> Table<&'static str> {
        Table::new(SessionLimits {
            idle: 10 * MINUTE,
            lifetime: 60 * MINUTE,
            max,
        })
    }

    fn alice() -> ClientKey {
        ClientKey::Session("alice".into())
    }

    fn bob() -> ClientKey {
        ClientKey::Subject("bob".into())
    }

    fn open(t: &mut Table<&'static str>, owner: ClientKey, now: Instant) -> String {
        let place = t.reserve().unwrap();
        t.insert(place, owner, Language::Python, "state", now)
    }

    #[test]
    fn closing_tells_the_session_language_to_its_owner_only() {
        let mut t = table(4);
        let now = Instant::now();
        let place = t.reserve().unwrap();
        let id = t.insert(place, alice(), Language::JavaScript, "state", now);
        assert!(t.close(&id, &bob()).is_err());
        assert_eq!(t.close(&id, &alice()).unwrap().0, Language::JavaScript);
    }

    #[test]
    fn ids_are_128_random_bits_and_only_their_owner_finds_them() {
        let mut t = table(4);
        let now = Instant::now();
        let id = open(&mut t, alice(), now);
        let other = open(&mut t, alice(), now);
        assert_eq!(id.len(), 32);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(id, other);
        assert_eq!(*t.use_session(&id, &alice(), now).unwrap().1, "state");
        // Another client gets the answer an unknown id gets, word for word.
        let foreign = t.use_session(&id, &bob(), now).unwrap_err();
        let unknown = t.use_session(&"0".repeat(32), &bob(), now).unwrap_err();
        assert_eq!(foreign, SessionError::NoSuch(id.clone()));
        assert_eq!(
            foreign.to_string().replace(&id, "X"),
            unknown.to_string().replace(&"0".repeat(32), "X")
        );
        assert!(t.close(&id, &bob()).is_err());
        assert!(t.list(&bob(), now).is_empty());
        assert_eq!(t.list(&alice(), now).len(), 2);
        // Over stdio and HTTP alike, the key decides: the stdio client is not alice either.
        assert!(t.use_session(&id, &ClientKey::Stdio, now).is_err());
        t.close(&id, &alice()).unwrap();
        assert!(matches!(
            t.use_session(&id, &alice(), now),
            Err(SessionError::Ended { .. })
        ));
        // Why a session ended is told to its owner only.
        assert_eq!(
            t.use_session(&id, &bob(), now),
            Err(SessionError::NoSuch(id.clone()))
        );
    }

    #[test]
    fn sessions_expire_when_idle_and_at_their_lifetime() {
        let mut t = table(4);
        let start = Instant::now();
        let idle = open(&mut t, alice(), start);
        let busy = open(&mut t, alice(), start);
        // Used every 9 minutes: alive past the idle timeout, until the lifetime.
        let mut now = start;
        for _ in 0..6 {
            now += 9 * MINUTE;
            t.use_session(&busy, &alice(), now).unwrap();
            t.done(&busy, now);
            if now < start + 10 * MINUTE {
                assert!(t.expire(now).is_empty());
            }
        }
        assert!(t.use_session(&busy, &alice(), now).is_ok());
        t.done(&busy, now);
        let Err(SessionError::Ended { why, .. }) = t.use_session(&idle, &alice(), now) else {
            panic!("the idle session is still open");
        };
        assert!(why.contains("10m without a call"), "{why}");
        let ended = t.expire(start + 60 * MINUTE);
        assert_eq!(ended.len(), 1);
        let Err(SessionError::Ended { why, .. }) =
            t.use_session(&busy, &alice(), start + 60 * MINUTE)
        else {
            panic!("the busy session outlived its lifetime");
        };
        assert!(why.contains("maximum lifetime of 1h"), "{why}");
        assert!(t.is_empty());
    }

    #[test]
    fn a_call_longer_than_the_idle_timeout_keeps_its_session() {
        let mut t = table(1);
        let start = Instant::now();
        let id = open(&mut t, alice(), start);
        t.use_session(&id, &alice(), start).unwrap();
        assert!(t.expire(start + 30 * MINUTE).is_empty());
        t.done(&id, start + 30 * MINUTE);
        assert!(t.expire(start + 39 * MINUTE).is_empty());
        assert_eq!(t.expire(start + 40 * MINUTE).len(), 1);
    }

    #[test]
    fn expiry_is_told_as_a_time_ahead() {
        let mut t = table(1);
        let now = Instant::now();
        let id = open(&mut t, alice(), now);
        let expires: SystemTime =
            humantime::parse_rfc3339(&t.expires_at(&id, now).unwrap()).unwrap();
        let ahead = expires.duration_since(SystemTime::now()).unwrap();
        assert!(ahead > 9 * MINUTE && ahead <= 10 * MINUTE, "{ahead:?}");
    }

    #[test]
    fn at_most_max_sessions_open_or_opening() {
        let mut t = table(2);
        let now = Instant::now();
        let first = open(&mut t, alice(), now);
        let opening = t.reserve().unwrap();
        assert_eq!(t.reserve().err(), Some(SessionError::Full { max: 2 }));
        t.release(opening);
        let _second = open(&mut t, bob(), now);
        assert!(t.reserve().is_err());
        t.close(&first, &alice()).unwrap();
        let place = t.reserve().unwrap();
        t.release(place);
        assert_eq!(t.drain().len(), 1);
        assert!(t.is_empty());
    }

    #[test]
    fn ended_notes_are_bounded() {
        let mut t = table(1);
        let now = Instant::now();
        let first = open(&mut t, alice(), now);
        t.end(&first, "it timed out");
        for _ in 0..ENDED_KEPT {
            let id = open(&mut t, alice(), now);
            t.end(&id, "closed");
        }
        assert_eq!(t.ended.len(), ENDED_KEPT);
        assert_eq!(
            t.use_session(&first, &alice(), now),
            Err(SessionError::NoSuch(first.clone()))
        );
    }
}
