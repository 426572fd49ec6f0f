//! Everything about the command line's flags that is not one subcommand's own
//! business: the one definition of each flag several subcommands declare
//! (`defs`), the values flags take (`values`), the EXIT STATUS tables
//! (`exit_status`) and the short `-h` pages (`short`).
//!
//! This follows ripgrep's `flags/defs.rs` on top of clap's derive: a field
//! keeps its Rust type (and a typed default) where its command reads it, and
//! everything a user sees of the flag comes from its definition here, applied
//! with `Command::mut_args` (`defs::one`), so that a flag's wording in each subcommand sits
//! side by side in one function.

pub mod defs;
pub mod exit_status;
pub mod short;
pub mod values;

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::app::cli;

    /// Every argument of every subcommand, built as the binary builds them
    /// (global ones propagated, help and version added).
    fn arguments() -> Vec<(String, clap::Arg)> {
        let mut cli = cli::command();
        cli.build();
        cli.get_subcommands()
            .flat_map(|cmd| {
                let name = cmd.get_name().to_owned();
                cmd.get_arguments()
                    .map(move |arg| (name.clone(), arg.clone()))
            })
            .collect()
    }

    /// A long name has one short name in every subcommand that takes it
    /// (or none anywhere): `-t` is --threshold wherever it appears.
    #[test]
    fn a_flag_has_one_short_name_everywhere() {
        let mut shorts: BTreeMap<String, (Option<char>, String)> = BTreeMap::new();
        for (command, arg) in arguments() {
            let Some(long) = arg.get_long() else { continue };
            let (short, first) = shorts
                .entry(long.to_owned())
                .or_insert((arg.get_short(), command.clone()));
            assert_eq!(
                *short,
                arg.get_short(),
                "--{long}: {first} and {command} give it different short names"
            );
        }
    }

    /// Every flag a user can see has help text, so a definition from `defs`
    /// that was forgotten (a bare `#[arg(long)]` field) cannot go unnoticed.
    #[test]
    fn every_visible_flag_has_help() {
        for (command, arg) in arguments() {
            if arg.is_hide_set() {
                continue;
            }
            assert!(
                arg.get_help().is_some() || arg.get_long_help().is_some(),
                "{command} --{} has no help",
                arg.get_id()
            );
        }
    }
}
