//! Warm pools: containers started ahead of time, each with its runner already waiting (its
//! class's libraries imported, see [`Preload`]) for code on stdin. Each is used once and
//! destroyed; the pool refills in the background, so a call costs a write and a read rather
//! than a container start.
//!
//! One pool per language holds a queue per runner class. How many of each it keeps follows
//! recent demand, within a memory budget: `size` containers of the heaviest class, so more of
//! the light ones fit. Every class asked for lately keeps at least one warm container while
//! the budget allows, so a busy class cannot starve a quiet one. Starts run in parallel up to
//! twice the CPUs: a start is mostly waiting on the engine and the runner's imports, and more
//! at once only makes each slower. Callers that find their queue empty take a warm container
//! of a heavier class (it runs the same code), else start their own, whichever comes first.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::StreamExt;
use tokio::sync::{Notify, Semaphore};
use tokio_util::task::TaskTracker;

use super::backend::Backend;
use super::container::{self, ContainerSpec, Started};
use super::error::SandboxError;
use super::preload::Preload;

/// Each call multiplies every class's demand by this, then adds 1 to its own: demand is the
/// last few dozen calls' mix.
const DECAY: f64 = 0.95;
/// A class with less than this share of recent demand is not kept warm.
const ACTIVE_SHARE: f64 = 0.05;
/// First and longest pause between refill attempts while the engine keeps failing.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

pub struct Pool {
    backend: Arc<dyn Backend>,
    spec: ContainerSpec,
    /// The classes this language's runner has, lightest first.
    classes: Vec<Preload>,
    /// Memory budget of the warm containers, in [`Preload::weight`] units.
    budget: usize,
    /// Container starts under way at once (refills and callers alike).
    starts: Arc<Semaphore>,
    state: Mutex<State>,
    /// A container became ready.
    changed: Notify,
    /// The refiller should look again.
    wake: Notify,
    closed: AtomicBool,
    tasks: TaskTracker,
    refiller: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

#[derive(Default)]
struct State {
    ready: HashMap<Preload, VecDeque<Started>>,
    starting: HashMap<Preload, usize>,
    demand: HashMap<Preload, f64>,
    /// Set while the engine keeps failing: the pause before the refiller's next start.
    backoff: Option<Duration>,
}

impl Pool {
    /// Creates a pool with a budget of `size` containers of its heaviest class and starts
    /// filling it in the background. A size of 0 means every call starts its own container.
    pub fn start(
        backend: Arc<dyn Backend>,
        spec: ContainerSpec,
        size: usize,
        classes: Vec<Preload>,
    ) -> Arc<Pool> {
        let heaviest = classes.iter().copied().max().unwrap_or(Preload::Full);
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        // Before any call: a heavy runner for whatever comes, a light one for the common case.
        let demand = HashMap::from([(heaviest, 1.0), (classes[0], 0.5)]);
        let pool = Arc::new(Pool {
            backend,
            spec,
            budget: size * heaviest.weight(),
            classes,
            starts: Arc::new(Semaphore::new((2 * cpus).max(2))),
            state: Mutex::new(State {
                demand,
                ..State::default()
            }),
            changed: Notify::new(),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            tasks: TaskTracker::new(),
            refiller: Mutex::new(None),
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

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lightest class this runner has that runs code needing `wanted`.
    fn class_for(&self, wanted: Preload) -> Preload {
        let heaviest = *self.classes.last().expect("a class");
        self.classes
            .iter()
            .copied()
            .find(|&c| c >= wanted)
            .unwrap_or(heaviest)
    }

    fn spec_for(&self, class: Preload) -> ContainerSpec {
        ContainerSpec {
            preload: class,
            ..self.spec.clone()
        }
    }

    /// A live warm container of the class for `wanted` (or of a heavier one), or a freshly
    /// started one when none is warm and none becomes ready before a start can begin.
    pub async fn take(&self, wanted: Preload) -> Result<Started, SandboxError> {
        let class = self.class_for(wanted);
        {
            let mut state = self.state();
            for demand in state.demand.values_mut() {
                *demand *= DECAY;
            }
            *state.demand.entry(class).or_default() += 1.0;
        }
        self.wake.notify_one();
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(started) = self.pop_alive(class) {
                return Ok(started);
            }
            tokio::select! {
                _ = changed => {}
                permit = Arc::clone(&self.starts).acquire_owned() => {
                    let _permit = permit.expect("the semaphore is never closed");
                    if let Some(started) = self.pop_alive(class) {
                        return Ok(started);
                    }
                    return container::start(self.backend.as_ref(), &self.spec_for(class)).await;
                }
            }
        }
    }

    /// A warm container of `class` or else of the lightest heavier class that has one; dead
    /// ones found on the way are destroyed in the background.
    fn pop_alive(&self, class: Preload) -> Option<Started> {
        loop {
            let next = {
                let mut state = self.state();
                self.classes
                    .iter()
                    .filter(|&&c| c >= class)
                    .find_map(|c| state.ready.get_mut(c).and_then(VecDeque::pop_front))
            };
            self.wake.notify_one();
            let mut started = next?;
            // The runner writes nothing before it gets code, so anything already waiting on
            // the stream means the container died (killed from outside, engine restarted).
            if started.output.next().now_or_never().is_none() {
                return Some(started);
            }
            tracing::warn!(container = %container::short(&started.id), "discarding a warm container that died");
            let backend = Arc::clone(&self.backend);
            self.tasks.spawn(async move {
                container::destroy(backend.as_ref(), &started.id).await;
                drop(started);
            });
        }
    }

    /// How many warm containers are waiting.
    pub fn ready_count(&self) -> usize {
        self.state().ready.values().map(VecDeque::len).sum()
    }

    /// Waits until the pool holds `count` warm containers, or all it means to keep if that is
    /// fewer (or `timeout` passes). Only containers a class is meant to keep count: a surplus
    /// of a class demand has moved away from (light runners after a run of full calls) is no
    /// stand-in for the class still starting, which the next call needs.
    pub async fn wait_ready(&self, count: usize, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let settled = {
                let state = self.state();
                let ready = |class: &Preload| state.ready.get(class).map_or(0, VecDeque::len);
                settled(&self.targets(&state.demand), ready, count)
            };
            if settled {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn targets(&self, demand: &HashMap<Preload, f64>) -> HashMap<Preload, usize> {
        targets(&self.classes, self.budget, demand)
    }

    /// A warm container of a class holding more than its target, while the warm and starting
    /// containers weigh more than the budget (demand moved to another class).
    fn surplus(&self, state: &mut State) -> Option<Started> {
        let weight: usize = self
            .classes
            .iter()
            .map(|c| {
                let count = state.ready.get(c).map_or(0, VecDeque::len)
                    + state.starting.get(c).copied().unwrap_or(0);
                count * c.weight()
            })
            .sum();
        if weight <= self.budget {
            return None;
        }
        let targets = self.targets(&state.demand);
        self.classes.iter().find_map(|c| {
            let queue = state.ready.get_mut(c)?;
            (queue.len() > targets.get(c).copied().unwrap_or(0))
                .then(|| queue.pop_front())
                .flatten()
        })
    }

    /// The class furthest below its target, counting containers being started.
    fn most_wanted(&self, state: &State) -> Option<Preload> {
        let have = |class: &Preload| {
            state.ready.get(class).map_or(0, VecDeque::len)
                + state.starting.get(class).copied().unwrap_or(0)
        };
        furthest_below(&self.targets(&state.demand), have)
    }

    async fn refill(self: Arc<Self>) {
        while !self.closed.load(Ordering::Acquire) {
            let (wanted, backoff, surplus) = {
                let mut state = self.state();
                let surplus = self.surplus(&mut state);
                (self.most_wanted(&state), state.backoff, surplus)
            };
            if let Some(started) = surplus {
                let backend = Arc::clone(&self.backend);
                self.tasks.spawn(async move {
                    container::destroy(backend.as_ref(), &started.id).await;
                    drop(started);
                });
                continue;
            }
            let Some(class) = wanted else {
                self.wake.notified().await;
                continue;
            };
            if let Some(pause) = backoff {
                tokio::select! {
                    _ = tokio::time::sleep(pause) => {}
                    _ = self.wake.notified() => {}
                }
            }
            let permit = tokio::select! {
                permit = Arc::clone(&self.starts).acquire_owned() => permit.expect("never closed"),
                _ = self.wake.notified() => continue,
            };
            if self.closed.load(Ordering::Acquire) {
                break;
            }
            *self.state().starting.entry(class).or_default() += 1;
            let pool = Arc::clone(&self);
            self.tasks.spawn(async move {
                let result = container::start(pool.backend.as_ref(), &pool.spec_for(class)).await;
                drop(permit);
                pool.started(class, result).await;
            });
        }
    }

    /// Files a container a refill started (or the reason it could not).
    async fn started(&self, class: Preload, result: Result<Started, SandboxError>) {
        let closed = self.closed.load(Ordering::Acquire);
        let result = {
            let mut state = self.state();
            *state.starting.entry(class).or_default() -= 1;
            match result {
                Ok(started) if !closed => {
                    state.backoff = None;
                    state.ready.entry(class).or_default().push_back(started);
                    Ok(None)
                }
                Ok(started) => Ok(Some(started)),
                Err(e) => {
                    let pause = state
                        .backoff
                        .map_or(FIRST_BACKOFF, |b| (b * 2).min(MAX_BACKOFF));
                    state.backoff = Some(pause);
                    Err((e, pause))
                }
            }
        };
        match result {
            Ok(None) => self.changed.notify_waiters(),
            Ok(Some(started)) => container::destroy(self.backend.as_ref(), &started.id).await,
            Err((e, pause)) => {
                tracing::warn!(error = %e, retry_in = ?pause, "could not start a warm container")
            }
        }
        self.wake.notify_one();
    }

    /// Stops refilling (waiting for containers being started) and destroys the warm ones.
    pub async fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.wake.notify_one();
        let task = self.refiller.lock().expect("refiller lock").take();
        if let Some(task) = task {
            let _ = task.await;
        }
        self.tasks.close();
        self.tasks.wait().await;
        let drained: Vec<Started> = {
            let mut state = self.state();
            state.ready.values_mut().flat_map(|q| q.drain(..)).collect()
        };
        for started in drained {
            container::destroy(self.backend.as_ref(), &started.id).await;
        }
    }
}

/// The class whose count (`have`) is furthest below its target, as a share of the target. A
/// class above its target (demand moved away, its surplus not yet taken) is simply not wanted.
fn furthest_below(
    targets: &HashMap<Preload, usize>,
    have: impl Fn(&Preload) -> usize,
) -> Option<Preload> {
    targets
        .iter()
        .filter_map(|(class, &target)| {
            let have = have(class);
            (have < target).then(|| (*class, (target - have) as f64 / target as f64))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(class, _)| class)
}

/// Whether the warm containers (`ready` of each class) fill `count` places, or all the
/// targets if they are fewer, counting each class's containers up to its own target only.
fn settled(
    targets: &HashMap<Preload, usize>,
    ready: impl Fn(&Preload) -> usize,
    count: usize,
) -> bool {
    let kept: usize = targets.values().sum();
    let warm: usize = targets
        .iter()
        .map(|(class, &target)| ready(class).min(target))
        .sum();
    warm >= count.min(kept)
}

/// How many warm containers of each class to keep: one for each class in recent demand,
/// busiest first, while the budget lasts; the rest of the budget shared by demand.
fn targets(
    classes: &[Preload],
    budget: usize,
    demand: &HashMap<Preload, f64>,
) -> HashMap<Preload, usize> {
    let total: f64 = demand.values().sum::<f64>().max(f64::MIN_POSITIVE);
    let mut active: Vec<(Preload, f64)> = classes
        .iter()
        .map(|&c| (c, demand.get(&c).copied().unwrap_or(0.0) / total))
        .filter(|&(_, share)| share >= ACTIVE_SHARE)
        .collect();
    active.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut left = budget;
    let mut targets = HashMap::new();
    for &(class, _) in &active {
        if class.weight() <= left {
            targets.insert(class, 1);
            left -= class.weight();
        }
    }
    let shared = left as f64;
    for &(class, share) in &active {
        if let Some(count) = targets.get_mut(&class) {
            let more = ((shared * share) as usize / class.weight()).min(left / class.weight());
            *count += more;
            left -= more * class.weight();
        }
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(budget: usize, demand: &[(Preload, f64)]) -> Vec<(Preload, usize)> {
        let targets = targets(&Preload::ALL, budget, &demand.iter().copied().collect());
        let mut kept: Vec<_> = targets.into_iter().filter(|&(_, n)| n > 0).collect();
        kept.sort();
        kept
    }

    #[test]
    fn a_class_above_its_target_is_not_wanted() {
        let targets = HashMap::from([(Preload::Light, 1), (Preload::Full, 2)]);
        // Light holds more than its target: it is skipped, not subtracted from.
        let have = |c: &Preload| if *c == Preload::Light { 4 } else { 1 };
        assert_eq!(furthest_below(&targets, have), Some(Preload::Full));
        assert_eq!(furthest_below(&targets, |_| 5), None);
        // Furthest below as a share of the target: 0 of 1 before 1 of 2.
        let have = |c: &Preload| if *c == Preload::Light { 0 } else { 1 };
        assert_eq!(furthest_below(&targets, have), Some(Preload::Light));
    }

    #[test]
    fn a_surplus_of_one_class_does_not_settle_a_pool_missing_another() {
        // After a full call, demand keeps one full and one light runner; two light ones are
        // warm and the full one is still starting: not settled, the next full call would
        // start its own.
        let targets = HashMap::from([(Preload::Light, 1), (Preload::Full, 1)]);
        let lights_only = |c: &Preload| if *c == Preload::Light { 2 } else { 0 };
        assert!(!settled(&targets, lights_only, usize::MAX));
        assert!(settled(&targets, |_| 1, usize::MAX));
        // Asking for fewer than the targets: any kept ones will do.
        assert!(settled(&targets, lights_only, 1));
        // A class without a target counts for nothing.
        let full_only = HashMap::from([(Preload::Full, 2)]);
        assert!(!settled(&full_only, lights_only, usize::MAX));
    }

    #[test]
    fn pools_follow_demand_within_the_budget() {
        let budget = 2 * Preload::Full.weight();
        // Only light calls: the whole budget in light runners.
        assert_eq!(
            kept(budget, &[(Preload::Light, 10.0)]),
            [(Preload::Light, 12)]
        );
        // Only full calls: as many full runners as the budget holds.
        assert_eq!(kept(budget, &[(Preload::Full, 10.0)]), [(Preload::Full, 2)]);
        // A quiet class keeps one warm beside a busy one.
        let mixed = kept(budget, &[(Preload::Light, 18.0), (Preload::Data, 2.0)]);
        assert_eq!(mixed, [(Preload::Light, 6), (Preload::Data, 1)]);
        // Classes without recent demand get nothing; the budget is never exceeded.
        for demand in [
            vec![
                (Preload::Light, 1.0),
                (Preload::Data, 1.0),
                (Preload::Full, 1.0),
            ],
            vec![(Preload::Full, 5.0), (Preload::Light, 0.01)],
        ] {
            let targets = targets(&Preload::ALL, budget, &demand.iter().copied().collect());
            let weight: usize = targets.iter().map(|(c, n)| c.weight() * n).sum();
            assert!(weight <= budget, "{targets:?}");
            for (class, share) in demand {
                assert_eq!(targets.contains_key(&class), share >= 0.05, "{targets:?}");
            }
        }
        // A budget smaller than one of each: the busiest first.
        assert_eq!(
            kept(
                Preload::Full.weight(),
                &[(Preload::Full, 2.0), (Preload::Data, 1.0)]
            ),
            [(Preload::Full, 1)]
        );
    }
}
