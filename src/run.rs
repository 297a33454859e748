//! The command line: parse arguments, run one command, map the result to an exit code.
//! (The hook and user commands land with issues 5 and 7.)

use std::process::ExitCode;

pub fn main() -> ExitCode {
    println!("jev-preflight {}", env!("CARGO_PKG_VERSION"));
    ExitCode::SUCCESS
}
