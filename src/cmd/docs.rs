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

/// Writes the roff man page of `cmd` to `out`: one page that holds every subcommand whole —
/// its synopsis, its description and its options — rather than pointing at pages of their
/// own that nobody installs.
pub fn man_page(cmd: &clap::Command, out: &mut dyn Write) -> Result<(), DocsError> {
    let mut cmd = cmd.clone().disable_help_subcommand(true);
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut part = Vec::new();
    man.render_title(&mut part)?;
    man.render_name_section(&mut part)?;
    man.render_synopsis_section(&mut part)?;
    man.render_description_section(&mut part)?;
    man.render_options_section(&mut part)?;
    part.extend_from_slice(b".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        subcommand_section(sub, &mut part)?;
    }
    man.render_version_section(&mut part)?;
    // Every render starts with the same two lines that define the apostrophe string; the
    // page needs them once, at its top.
    let text = String::from_utf8_lossy(&part);
    let mut page = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if i >= 2 && APOSTROPHE_PRELUDE.contains(&line) {
            continue;
        }
        page.push_str(line);
        page.push('\n');
    }
    out.write_all(page.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The lines `clap_mangen` opens each render with.
const APOSTROPHE_PRELUDE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];

/// One subcommand's part of the page: a `.SS` heading with its full name, then its synopsis,
/// description and options (their `.SH` headings made paragraphs of the subsection).
fn subcommand_section(sub: &clap::Command, page: &mut Vec<u8>) -> io::Result<()> {
    let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name());
    page.extend_from_slice(format!(".SS \"{}\"\n", name.replace('-', "\\-")).as_bytes());
    let man = clap_mangen::Man::new(sub.clone());
    let mut part = Vec::new();
    man.render_synopsis_section(&mut part)?;
    man.render_description_section(&mut part)?;
    if sub.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut part)?;
    }
    for line in String::from_utf8_lossy(&part).lines() {
        let line = match line.strip_prefix(".SH ") {
            Some("SYNOPSIS") => continue,
            Some("DESCRIPTION") => ".PP".to_owned(),
            // OPTIONS and any help heading: a paragraph titled in italics.
            Some(heading) => {
                let heading = heading.trim_matches('"');
                let mut chars = heading.chars();
                let title: String = chars
                    .next()
                    .into_iter()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect();
                format!(".PP\n\\fI{title}\\fR")
            }
            None => line.to_owned(),
        };
        page.extend_from_slice(line.as_bytes());
        page.push(b'\n');
    }
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
