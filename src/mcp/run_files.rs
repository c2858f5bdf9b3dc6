//! The files runs returned, kept for `resources/read` at `sandbox://runs/<run-id>/files/<path>`
//! for a bounded time and total size (oldest evicted first), readable only by the client that
//! made the run. A client asking for another client's run gets the same answer as for a run
//! that never existed.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::identity::ClientKey;
use crate::policy::format_size;
use crate::workdir;

pub const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);
pub const DEFAULT_CAPACITY: u64 = 256 << 20;
/// Evicted runs remembered (with their owners) so a late read gets a precise error.
const REMEMBERED: usize = 4096;
const PREFIX: &str = "sandbox://runs/";

struct StoredRun {
    id: String,
    owner: ClientKey,
    stored: Instant,
    bytes: u64,
    files: Vec<(String, Arc<Vec<u8>>)>,
}

#[derive(Default)]
struct State {
    runs: VecDeque<StoredRun>,
    total: u64,
    /// Runs gone (expired or evicted), oldest first.
    gone: VecDeque<(String, ClientKey)>,
}

pub struct RunFiles {
    ttl: Duration,
    capacity: u64,
    state: Mutex<State>,
}

/// A file read back.
#[derive(Debug)]
pub struct ReadFile {
    pub path: String,
    pub mime: &'static str,
    pub content: Arc<Vec<u8>>,
}

impl RunFiles {
    pub fn new(ttl: Duration, capacity: u64) -> RunFiles {
        RunFiles {
            ttl,
            capacity,
            state: Mutex::new(State::default()),
        }
    }

    /// True for a URI this store answers.
    pub fn claims(uri: &str) -> bool {
        uri.starts_with(PREFIX)
    }

    /// Keeps a run's files; a run larger than the whole store is not kept (and says so).
    pub fn put(&self, id: &str, owner: ClientKey, files: Vec<(String, Vec<u8>)>) {
        if files.is_empty() {
            return;
        }
        let bytes: u64 = files.iter().map(|(_, c)| c.len() as u64).sum();
        let mut state = self.state.lock().expect("not poisoned");
        self.expire(&mut state);
        if bytes > self.capacity {
            state.gone.push_back((id.to_owned(), owner));
            trim(&mut state.gone);
            return;
        }
        while state.total + bytes > self.capacity {
            let Some(old) = state.runs.pop_front() else {
                break;
            };
            state.total -= old.bytes;
            state.gone.push_back((old.id, old.owner));
        }
        trim(&mut state.gone);
        state.total += bytes;
        state.runs.push_back(StoredRun {
            id: id.to_owned(),
            owner,
            stored: Instant::now(),
            bytes,
            files: files
                .into_iter()
                .map(|(path, content)| (path, Arc::new(content)))
                .collect(),
        });
    }

    /// The file at `uri` if `client` made its run and it is still kept; else an error that
    /// says which of those it is (without telling one client about another's runs).
    pub fn read(&self, uri: &str, client: &ClientKey) -> Result<ReadFile, String> {
        let rest = uri.strip_prefix(PREFIX).unwrap_or_default();
        let (id, path) = rest.split_once("/files/").ok_or_else(|| {
            format!("{uri} is not a run file URI; they read sandbox://runs/<run-id>/files/<path>, as a run's result lists them")
        })?;
        let path = workdir::uri_path_decode(path)
            .ok_or_else(|| format!("{uri}: the path is not validly escaped"))?;
        let mut state = self.state.lock().expect("not poisoned");
        self.expire(&mut state);
        let Some(run) = state.runs.iter().find(|r| r.id == id && &r.owner == client) else {
            if state.gone.iter().any(|(g, o)| g == id && o == client) {
                return Err(format!(
                    "the files of run {id} are no longer kept: run files are kept for {} min and {} in all, oldest dropped first. Run the code again to get them.",
                    self.ttl.as_secs() / 60,
                    format_size(self.capacity)
                ));
            }
            return Err(format!(
                "no run {id} of this client has files; read the URIs a run's result lists, from the same client (session or token) that made the run"
            ));
        };
        let (path, content) = run.files.iter().find(|(p, _)| *p == path).ok_or_else(|| {
            let names: Vec<&str> = run.files.iter().map(|(p, _)| p.as_str()).collect();
            format!(
                "run {id} returned no file {path:?}; its files are: {}",
                names.join(", ")
            )
        })?;
        Ok(ReadFile {
            mime: workdir::mime_of(path),
            path: path.clone(),
            content: Arc::clone(content),
        })
    }

    fn expire(&self, state: &mut State) {
        while state
            .runs
            .front()
            .is_some_and(|r| r.stored.elapsed() >= self.ttl)
        {
            let old = state.runs.pop_front().expect("checked");
            state.total -= old.bytes;
            state.gone.push_back((old.id, old.owner));
        }
        trim(&mut state.gone);
    }
}

fn trim(gone: &mut VecDeque<(String, ClientKey)>) {
    while gone.len() > REMEMBERED {
        gone.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(id: &str, path: &str) -> String {
        crate::gateway::run_file_uri(id, path)
    }

    #[test]
    fn only_the_owner_reads_and_eviction_is_explained() {
        let store = RunFiles::new(DEFAULT_TTL, 10);
        let me = ClientKey::Session("a".into());
        let other = ClientKey::Session("b".into());
        store.put(
            "r1",
            me.clone(),
            vec![("out dir/x.csv".into(), b"123456".to_vec())],
        );
        let read = store.read(&uri("r1", "out dir/x.csv"), &me).unwrap();
        assert_eq!(
            (read.content.as_slice(), read.mime),
            (&b"123456"[..], "text/csv")
        );
        let refused = store.read(&uri("r1", "out dir/x.csv"), &other).unwrap_err();
        assert!(refused.contains("no run r1 of this client"), "{refused}");
        let missing = store.read(&uri("r1", "y"), &me).unwrap_err();
        assert!(missing.contains("out dir/x.csv"), "{missing}");
        // A second run pushes the first out.
        store.put("r2", me.clone(), vec![("y".into(), b"12345".to_vec())]);
        let evicted = store.read(&uri("r1", "out dir/x.csv"), &me).unwrap_err();
        assert!(evicted.contains("no longer kept"), "{evicted}");
        let still_hidden = store.read(&uri("r1", "out dir/x.csv"), &other).unwrap_err();
        assert!(still_hidden.contains("no run r1"), "{still_hidden}");
        assert!(store.read(&uri("r2", "y"), &me).is_ok());
    }

    #[test]
    fn runs_expire() {
        let store = RunFiles::new(Duration::ZERO, 1 << 20);
        store.put("r", ClientKey::Stdio, vec![("a".into(), vec![1])]);
        let error = store.read(&uri("r", "a"), &ClientKey::Stdio).unwrap_err();
        assert!(error.contains("no longer kept"), "{error}");
    }
}
