//! One module per subcommand. Each has the same shape: a doc comment that is its
//! `--help`, a clap `Args` struct, and `run(Args) -> anyhow::Result<i32>` that
//! returns the exit code. A subcommand prints; it takes its shared arguments from
//! `args`, its configuration from `config`, and never imports a sibling.

pub mod compare;
pub mod completions;
pub mod curve;
pub mod dedupe;
pub mod explain;
pub mod fingerprint;
pub mod group;
pub mod index;
pub mod man;
pub mod minhash;
pub mod probe;
pub mod query;
pub mod scan;
pub mod score;
pub mod sign;
pub mod tune;
pub mod undo;
pub mod validate;
pub mod verify;
