//! The `simfind` binary's own code: argument parsing, subcommands, output and
//! the terminal. The library never imports it.
//!
//! Layers, each importing only those below it: `cli` (parser and dispatch) →
//! `cmd/*` (one file per subcommand) → `config` (arg groups → validated library
//! configuration) → `args` (shared clap groups) and `flags` (each shared flag's
//! one definition, value parsers, help tables, the short `-h`), with
//! `report`, `output`, `ui` and `exit` beside them for printing, `speak` (the
//! library's typed errors, reasons and notices worded with the flags), and
//! `limits` (out of memory, file size limit) for the process as a whole.
pub mod args;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod containment;
pub mod exchange_run;
pub mod exit;
pub mod families;
pub mod flags;
pub mod fs_model;
pub mod important;
pub mod limits;
pub mod lower;
pub mod output;
pub mod report;
pub mod speak;
pub mod ui;
pub mod weighted;
