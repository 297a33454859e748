//! One entry of the decision log (`<data>/decisions.jsonl`): what the hook decided on one
//! event and the content-free facts behind it. The hook writes it; `status` reads it back.
//!
//! The log outlives the binary that wrote it, so the entry is read leniently: a field it does
//! not name is ignored (a newer writer), a field it lacks takes its default (an older one), and
//! an entry without `v` is version 1, the shape written before the field existed. Only a line
//! that is no entry at all is skipped (see [`crate::state::Store::decisions`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The version of an entry's shape, `v` in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Version(pub u32);

impl Version {
    /// The shape this binary writes.
    pub const CURRENT: Version = Version(1);
}

impl Default for Version {
    /// An entry that names no version was written before `v` existed: version 1.
    fn default() -> Version {
        Version(1)
    }
}

/// One decision of the hook. Which fields are present depends on how far the event got: every
/// entry has `time`, `event`, `session` and `outcome`; a failure adds `class`; a Stop that
/// scored adds the scorer's facts.
///
/// A field that is `None` is left out of the line (see the `Serialize` impl), and the keys come
/// out sorted, as the log has always had them: it was first written from JSON maps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, remote = "Self")]
pub struct Decision {
    /// Why the remote budget mattered: `cached`, `local: <limit>` or `skipped: <limit>`.
    pub budget: Option<String>,
    /// Paths the turn changed, when none was left to score.
    pub changed: Option<u64>,
    /// The failure class of a failed event (`git_timeout`, …).
    pub class: Option<String>,
    /// The event's working directory; `status` matches entries to a repository by it.
    pub cwd: Option<String>,
    /// How the snapshot engine found the turn's changes (`files`, `whole`, …).
    pub diff: Option<String>,
    /// Paths the walk did not keep in a large turn.
    pub dropped: Option<u64>,
    /// The event's protocol name (`Stop`), or `hook` for input that was no event.
    pub event: String,
    /// Changed paths the selection excluded, when none was left to score.
    pub excluded: Option<u64>,
    /// Files in the payload.
    pub files: Option<u64>,
    /// The first 16 hex digits of the payload's hash.
    pub hash: Option<String>,
    /// The host, when it is not Claude Code.
    pub host: Option<String>,
    /// The `maxDiffBytes` a skipped payload was over.
    pub max_diff_bytes: Option<u64>,
    /// The prompt's mode, by its name in the config (`assist`, `report`, `off`).
    pub mode: Option<String>,
    /// The model the scorer reported. Present with `null` when a scorer scored and named
    /// none, absent when nothing was scored, as the log has always had it.
    #[serde(deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub model: Option<Option<String>>,
    /// Milliseconds per stage of the Stop, by stage name (`prepare`, `changes`, …).
    pub ms: Option<BTreeMap<String, f64>>,
    /// Files the payload left out (a partial payload).
    pub omitted: Option<u64>,
    /// The short machine-readable outcome (`continued`, `below threshold`, `failed`, …).
    pub outcome: String,
    /// Bytes of the payload (scored, or over `maxDiffBytes`).
    pub payload_bytes: Option<u64>,
    /// Secrets redacted from the payload; never the secrets themselves.
    pub redactions: Option<Redactions>,
    /// Axes not raised again: the agent already looked at the same lines.
    pub remembered: Option<Vec<String>>,
    /// The repository `cwd` belongs to, found by `status` when it reads the entry; the hook
    /// never writes it.
    pub repo: Option<String>,
    /// The scorer that scored (`local`, `jev`, `openai`, `command`).
    pub scorer: Option<String>,
    /// The score of every axis, rounded to 4 decimals, by axis id.
    pub scores: Option<BTreeMap<String, f64>>,
    /// The axes selected for the answer, in the answer's order (empty: none reached its
    /// threshold).
    pub selected: Option<Vec<String>>,
    /// The session's hash prefix (never its id).
    pub session: String,
    /// Seconds since the epoch.
    pub time: u64,
    /// Changes whose content was never read in a large turn.
    pub unread: Option<u64>,
    /// The entry's shape.
    pub v: Version,
}

impl Serialize for Decision {
    /// The derived fields as a JSON map, less those that are `None`. `model` keeps its `null`:
    /// its `Some(None)` (a scorer that named no model) is written, its `None` is not.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = Decision::serialize(self, serde_json::value::Serializer)
            .map_err(serde::ser::Error::custom)?;
        let serde_json::Value::Object(mut map) = fields else {
            return Err(serde::ser::Error::custom("a decision is a JSON object"));
        };
        map.retain(|key, value| !value.is_null() || key == "model");
        map.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Decision {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Decision, D::Error> {
        Decision::deserialize(deserializer)
    }
}

/// Secrets redacted from a payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Redactions {
    /// Counts per marker type (`{"aws-access-key": 1}`), as written now.
    PerMarker(BTreeMap<String, u64>),
    /// One total, as written before the per-type counts.
    Total(u64),
}

/// A field that is present, `null` included, is `Some`; [`Decision`]'s `#[serde(default)]`
/// makes an absent one `None`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> Decision {
        let one = |k: &str| BTreeMap::from([(k.to_owned(), 1.0)]);
        Decision {
            budget: Some("cached".into()),
            changed: Some(1),
            class: Some("git_timeout".into()),
            cwd: Some("/r".into()),
            diff: Some("files".into()),
            dropped: Some(1),
            event: "Stop".into(),
            excluded: Some(1),
            files: Some(1),
            hash: Some("0123456789abcdef".into()),
            host: Some("codex".into()),
            max_diff_bytes: Some(1),
            mode: Some("assist".into()),
            model: Some(None),
            ms: Some(one("score")),
            omitted: Some(1),
            outcome: "continued".into(),
            payload_bytes: Some(1),
            redactions: Some(Redactions::PerMarker(BTreeMap::from([("k".into(), 1)]))),
            remembered: Some(vec!["lifecycle".into()]),
            repo: Some("/r".into()),
            scorer: Some("local".into()),
            scores: Some(one("lifecycle")),
            selected: Some(vec![]),
            session: "abc".into(),
            time: 1,
            unread: Some(1),
            v: Version::CURRENT,
        }
    }

    #[test]
    fn fields_serialize_in_the_sorted_order_of_the_old_log() {
        let line = serde_json::to_string(&full()).unwrap();
        let sorted: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(line, sorted.to_string());
        assert_eq!(serde_json::from_str::<Decision>(&line).unwrap(), full());
    }

    #[test]
    fn old_and_newer_entries_read() {
        // Written before `v`, with the old total of redactions and a model of `null`.
        let old = r#"{"event":"Stop","model":null,"outcome":"reported","redactions":3,
            "session":"s","time":5}"#;
        let d: Decision = serde_json::from_str(old).unwrap();
        assert_eq!(d.v, Version(1));
        assert_eq!(d.model, Some(None));
        assert_eq!(d.redactions, Some(Redactions::Total(3)));
        // Written by a newer binary: a field this one does not know is ignored.
        let newer = r#"{"event":"Stop","outcome":"x","session":"s","time":5,"v":2,"new":[1]}"#;
        let d: Decision = serde_json::from_str(newer).unwrap();
        assert_eq!((d.v, d.outcome.as_str(), d.model), (Version(2), "x", None));
        // A line this binary wrote comes back out byte for byte.
        let line = r#"{"event":"Stop","model":null,"outcome":"o","session":"s","time":1,"v":1}"#;
        let d: Decision = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), line);
    }
}
