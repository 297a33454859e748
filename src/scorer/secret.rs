//! Holds credentials in a type that cannot be printed by accident.

use std::fmt;

/// An API key. `Debug` and `Display` print `****`; the only way to the bytes is [`ApiKey::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; surrounding whitespace (a trailing newline from a file or a paste) is dropped.
    /// An empty key is no key.
    pub fn new(raw: &str) -> Option<ApiKey> {
        let trimmed = raw.trim();
        (!trimmed.is_empty()).then(|| ApiKey(trimmed.to_owned()))
    }

    /// The key itself, for the one place that puts it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(****)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("****")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints() {
        let key = ApiKey::new(" sk-very-secret\n").unwrap();
        assert_eq!(key.expose(), "sk-very-secret");
        assert!(!format!("{key:?} {key}").contains("very-secret"));
        assert!(ApiKey::new("  ").is_none());
    }
}
