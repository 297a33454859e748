//! The host environment, read once at the edge: every variable of the process and the clock,
//! passed down as one [`HostEnv`] so that nothing below reads `std::env` or the clock itself
//! and tests inject both. [`vars`] is the one documented list of the variables we read.

pub mod vars;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use vars as ev;

/// The process environment and clock, read once at the edge.
#[derive(Debug, Clone)]
pub struct HostEnv {
    vars: BTreeMap<String, String>,
    pub now: SystemTime,
}

impl HostEnv {
    /// Reads every (UTF-8) variable of this process and the clock.
    pub fn from_process() -> HostEnv {
        HostEnv {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            now: SystemTime::now(),
        }
    }

    /// An environment made of exactly `pairs` (tests, the demo).
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> HostEnv {
        HostEnv {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            now: SystemTime::now(),
        }
    }

    /// A variable's value; unset and empty (how Claude Code passes unset options) are the same.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// The first of `names` that is set.
    pub fn first(&self, names: &[&'static str]) -> Option<(&'static str, &str)> {
        names
            .iter()
            .find_map(|name| self.get(name).map(|v| (*name, v)))
    }

    /// `$CLAUDE_PLUGIN_DATA`, else `$XDG_STATE_HOME/jev-preflight`, else
    /// `~/.local/state/jev-preflight`.
    pub fn data_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = self.get(ev::CLAUDE_PLUGIN_DATA) {
            return Some(PathBuf::from(dir));
        }
        if let Some(dir) = self
            .get(ev::XDG_STATE_HOME)
            .filter(|d| Path::new(d).is_absolute())
        {
            return Some(Path::new(dir).join("jev-preflight"));
        }
        self.get(ev::HOME)
            .map(|home| Path::new(home).join(".local/state/jev-preflight"))
    }

    /// `$XDG_CONFIG_HOME/jev-preflight/config.json`, else `~/.config/jev-preflight/config.json`.
    pub fn user_config_path(&self) -> Option<PathBuf> {
        if let Some(dir) = self
            .get(ev::XDG_CONFIG_HOME)
            .filter(|d| Path::new(d).is_absolute())
        {
            return Some(Path::new(dir).join("jev-preflight/config.json"));
        }
        self.get(ev::HOME)
            .map(|home| Path::new(home).join(".config/jev-preflight/config.json"))
    }
}
