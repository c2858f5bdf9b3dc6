//! Docker, and Podman through its Docker-compatible API: the [`super::backend::Backend`] that
//! runs sandboxes as containers of a local engine, and the engine's image store in which the
//! gateway builds and derives its images.
//!
//! This folder is the only place that speaks the engine's client library; everything above
//! it sees the sandbox's own types ([`super::backend::Chunk`], [`super::SandboxError`]).

mod containers;
pub mod engine;
mod error;
mod hardening;
pub mod images;
pub mod oneshot;

pub use engine::{Engine, EngineChoice, EngineKind, Runtime};
