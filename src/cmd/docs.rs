//! Shell completions and the man page, generated from the clap command definition.
//!
//! Both are rendered from the same `clap::Command` the binary parses with, so they cannot
//! drift from the real flags. The command line wires them to `jev-preflight completions
//! <shell>` and `jev-preflight man`.

use std::io::{self, Write};
use std::str::FromStr;

use clap_complete::Shell;

/// The shells completions can be generated for, as accepted by [`completions`].
pub const SHELLS: [&str; 5] = ["bash", "elvish", "fish", "powershell", "zsh"];

/// Why completions could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error("unknown shell `{0}`")]
    UnknownShell(String),
    #[error("could not write the output: {0}")]
    Write(#[from] io::Error),
}

impl DocsError {
    /// The next step for the user, printed on a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            DocsError::UnknownShell(_) => Some(format!("choose one of {}", SHELLS.join(", "))),
            DocsError::Write(_) => None,
        }
    }
}

/// Writes the completion script for `shell` (one of [`SHELLS`], case-insensitive) to `out`.
pub fn completions(
    cmd: &mut clap::Command,
    shell: &str,
    out: &mut dyn Write,
) -> Result<(), DocsError> {
    let parsed = Shell::from_str(&shell.to_ascii_lowercase())
        .map_err(|_| DocsError::UnknownShell(shell.to_owned()))?;
    let name = cmd
        .get_bin_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_owned();
    // clap_complete writes with `write_all` and panics on an I/O error; render into memory
    // first so that a closed pipe is an error we return, not a panic.
    let mut script = Vec::new();
    clap_complete::generate(parsed, cmd, name, &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// Writes the roff man page of `cmd`, its subcommands listed, to `out`.
pub fn man_page(cmd: &clap::Command, out: &mut dyn Write) -> Result<(), DocsError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    out.write_all(&page)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_shell_parses() {
        for shell in SHELLS {
            assert!(Shell::from_str(shell).is_ok(), "{shell}");
        }
    }
}
