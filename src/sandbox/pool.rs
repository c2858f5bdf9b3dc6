//! Warm pools: containers started ahead of time, each with its runner already waiting (heavy
//! libraries imported) for code on stdin. Each is used once and destroyed; the pool refills in
//! the background, so a call costs a write and a read rather than a container start.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::StreamExt;
use tokio::sync::{Mutex, Notify};

use super::container::{self, ContainerSpec, Started};
use super::engine::{Engine, SandboxError};

/// Containers started at once while refilling.
const PARALLEL_STARTS: usize = 2;
/// Longest pause between refill attempts while the engine keeps failing.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

pub struct Pool {
    engine: Engine,
    spec: ContainerSpec,
    size: usize,
    ready: Mutex<VecDeque<Started>>,
    wake: Notify,
    closed: AtomicBool,
    refiller: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Pool {
    /// Creates a pool of `size` warm containers and starts filling it in the background.
    /// A size of 0 means every call starts its own container.
    pub fn start(engine: Engine, spec: ContainerSpec, size: usize) -> Arc<Pool> {
        let pool = Arc::new(Pool {
            engine,
            spec,
            size,
            ready: Mutex::new(VecDeque::new()),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            refiller: std::sync::Mutex::new(None),
        });
        if size > 0 {
            let task = tokio::spawn(Arc::clone(&pool).refill());
            *pool.refiller.lock().expect("refiller lock") = Some(task);
        }
        pool
    }

    pub fn spec(&self) -> &ContainerSpec {
        &self.spec
    }

    /// A live warm container, or a freshly started one when the pool is empty.
    pub async fn take(&self) -> Result<Started, SandboxError> {
        loop {
            let next = self.ready.lock().await.pop_front();
            self.wake.notify_one();
            let Some(mut started) = next else { break };
            // The runner writes nothing before it gets code, so anything already waiting on
            // the stream means the container died (killed from outside, engine restarted).
            match started.output.next().now_or_never() {
                None => return Ok(started),
                Some(_) => {
                    tracing::warn!(container = %container::short(&started.id), "discarding a warm container that died");
                    container::destroy(&self.engine, &started.id).await;
                }
            }
        }
        container::start(&self.engine, &self.spec).await
    }

    /// How many warm containers are waiting.
    pub async fn ready_count(&self) -> usize {
        self.ready.lock().await.len()
    }

    /// Waits until the pool holds `count` warm containers (or `timeout` passes).
    pub async fn wait_ready(&self, count: usize, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        while self.ready_count().await < count.min(self.size) {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }

    async fn refill(self: Arc<Self>) {
        let mut backoff = Duration::from_millis(250);
        while !self.closed.load(Ordering::Acquire) {
            let missing = self.size.saturating_sub(self.ready.lock().await.len());
            if missing == 0 {
                self.wake.notified().await;
                continue;
            }
            // A few at once: a start is mostly waiting (on the engine, on the runner's
            // imports), so sustained throughput is bounded by the engine, not by this loop.
            let batch = missing.min(PARALLEL_STARTS);
            let started = futures_util::future::join_all(
                (0..batch).map(|_| container::start(&self.engine, &self.spec)),
            )
            .await;
            let mut failed = None;
            for result in started {
                match result {
                    Ok(started) if self.closed.load(Ordering::Acquire) => {
                        container::destroy(&self.engine, &started.id).await
                    }
                    Ok(started) => self.ready.lock().await.push_back(started),
                    Err(e) => failed = Some(e),
                }
            }
            match failed {
                None => backoff = Duration::from_millis(250),
                Some(e) => {
                    tracing::warn!(error = %e, retry_in = ?backoff, "could not start a warm container");
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = self.wake.notified() => {}
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    /// Stops refilling (waiting for a container being started) and destroys the warm ones.
    pub async fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.wake.notify_waiters();
        let task = self.refiller.lock().expect("refiller lock").take();
        if let Some(task) = task {
            let _ = task.await;
        }
        let drained: Vec<Started> = self.ready.lock().await.drain(..).collect();
        for started in drained {
            container::destroy(&self.engine, &started.id).await;
        }
    }
}
