//! What the positional inputs of `scan` are. The kinds are part of the
//! run's description, so they live with the `Spec` in the core; re-exported
//! here under their old path.

pub use simfind_core::spec::{InputKind, UnknownInputKind};
