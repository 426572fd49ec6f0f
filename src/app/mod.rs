//! The `simfind` binary's own code: argument parsing, subcommands, output and
//! the terminal. The library never imports it.
pub mod cli;
pub mod cmd;
pub mod exit;
pub mod output;
pub mod report;
pub mod ui;
