//! `simfind scan`: the whole near-duplicate pipeline (being built).

/// Find near-duplicate files under one or more directories and write the similar pairs as CSV.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directories to scan.
    #[arg(required = true)]
    pub roots: Vec<std::path::PathBuf>,
}

pub fn run(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("scan is not implemented yet")
}
