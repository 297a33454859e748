//! What remote scorers may spend, and what they spent: the user's limits on requests per
//! session and per UTC day and on reported tokens per UTC day, and a ledger of the requests
//! sent and the tokens replies reported.
//!
//! The ledger is one small append-only file at the store's root, `spend.log`, one line per
//! event: `<unix seconds> <session> request` when a request is about to be sent (counted
//! before it leaves, so a crash never under-counts) and `<unix seconds> <session> tokens <n>`
//! when a reply reports its usage. The session is the hash prefix the decision log uses; no
//! payload, no key, no content. An append is one `write` (no lock: concurrent hooks never
//! wait), so limits hold up to the few requests in flight at the same moment. Past
//! [`TRIM_FROM`] bytes the file is rewritten, under a non-waiting lock, to the lines of the
//! last two days: it stays bounded and every count the limits need is kept.

use std::path::{Path, PathBuf};

use super::{StoreError, read_file, write_unsynced};
use crate::fs::try_lock;

/// Size from which the ledger is trimmed to its last two days.
pub const TRIM_FROM: u64 = 256 * 1024;
const MAX_BYTES: u64 = 4 * 1024 * 1024;
const DAY: u64 = 86_400;

/// What a Stop does when a remote limit is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OverBudget {
    /// Score with the built-in scorer instead (nothing leaves the machine).
    #[default]
    Local,
    /// Do not score the turn.
    Skip,
}

/// The limits on remote scorers (`jev`, `openai`, `command`: any of them may call a paid
/// model). A limit of 0 allows no request at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub per_session: u64,
    pub per_day: u64,
    /// `None`: tokens are counted, not limited.
    pub tokens_per_day: Option<u64>,
    pub over: OverBudget,
}

impl Default for Budget {
    /// 50 requests per session and 200 per UTC day (a Stop sends at most one per distinct
    /// diff), tokens not limited, the built-in scorer past a limit.
    fn default() -> Budget {
        Budget {
            per_session: 50,
            per_day: 200,
            tokens_per_day: None,
            over: OverBudget::Local,
        }
    }
}

/// Which limit a request would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Session(u64),
    Day(u64),
    Tokens(u64),
}

impl Limit {
    /// The limit in words, with the setting that raises it.
    pub fn describe(self) -> String {
        match self {
            Limit::Session(n) => format!(
                "{n} remote request(s) per session (`JEV_PREFLIGHT_REMOTE_MAX_PER_SESSION`)"
            ),
            Limit::Day(n) => {
                format!("{n} remote request(s) per UTC day (`JEV_PREFLIGHT_REMOTE_MAX_PER_DAY`)")
            }
            Limit::Tokens(n) => format!(
                "{n} reported token(s) per UTC day (`JEV_PREFLIGHT_REMOTE_MAX_TOKENS_PER_DAY`)"
            ),
        }
    }
}

/// What the ledger counts for one session and one UTC day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spent {
    pub session_requests: u64,
    pub day_requests: u64,
    pub day_tokens: u64,
}

/// The ledger at the store's root.
#[derive(Debug, Clone)]
pub struct Ledger {
    path: PathBuf,
    lock: PathBuf,
}

impl Ledger {
    pub fn at(root: &Path) -> Ledger {
        Ledger {
            path: root.join("spend.log"),
            lock: root.join("spend.lock"),
        }
    }

    /// What `session` spent, and what every session spent on the UTC day of `now`.
    pub fn spent(&self, session: &str, now: u64) -> Result<Spent, StoreError> {
        let bytes = read_file(&self.path, MAX_BYTES)?.unwrap_or_default();
        let today = now / DAY;
        let mut spent = Spent::default();
        for line in String::from_utf8_lossy(&bytes).lines() {
            let mut fields = line.split(' ');
            let (Some(time), Some(who), Some(what)) = (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let Ok(time) = time.parse::<u64>() else {
                continue;
            };
            let on_day = time / DAY == today;
            match what {
                "request" => {
                    spent.session_requests += u64::from(who == session);
                    spent.day_requests += u64::from(on_day);
                }
                "tokens" if on_day => {
                    let n = fields.next().and_then(|n| n.parse::<u64>().ok());
                    spent.day_tokens = spent.day_tokens.saturating_add(n.unwrap_or(0));
                }
                _ => {}
            }
        }
        Ok(spent)
    }

    /// Records one request of `session` about to be sent at `now`, unless it would pass a
    /// limit of `budget`: then nothing is recorded and the limit is returned.
    pub fn reserve(
        &self,
        session: &str,
        now: u64,
        budget: &Budget,
    ) -> Result<Option<Limit>, StoreError> {
        let spent = self.spent(session, now)?;
        let over = if spent.session_requests >= budget.per_session {
            Some(Limit::Session(budget.per_session))
        } else if spent.day_requests >= budget.per_day {
            Some(Limit::Day(budget.per_day))
        } else {
            budget
                .tokens_per_day
                .filter(|&max| spent.day_tokens >= max)
                .map(Limit::Tokens)
        };
        if over.is_none() {
            self.append(&format!("{now} {session} request\n"), now)?;
        }
        Ok(over)
    }

    /// Records the tokens a reply to `session` reported.
    pub fn record_tokens(&self, session: &str, now: u64, tokens: u64) -> Result<(), StoreError> {
        self.append(&format!("{now} {session} tokens {tokens}\n"), now)
    }

    fn append(&self, line: &str, now: u64) -> Result<(), StoreError> {
        let len = crate::fs::append_line(&self.path, line.as_bytes())?;
        if len > TRIM_FROM {
            self.trim(now)?;
        }
        Ok(())
    }

    /// Keeps the lines of the UTC day of `now` and the day before.
    fn trim(&self, now: u64) -> Result<(), StoreError> {
        let Some(_lock) = try_lock(&self.lock)? else {
            return Ok(());
        };
        let bytes = read_file(&self.path, MAX_BYTES)?.unwrap_or_default();
        let since = (now / DAY).saturating_sub(1) * DAY;
        let kept: String = String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| {
                l.split(' ')
                    .next()
                    .and_then(|t| t.parse::<u64>().ok())
                    .is_some_and(|t| t >= since)
            })
            .flat_map(|l| [l, "\n"])
            .collect();
        write_unsynced(&self.path, kept.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_per_session_per_day_and_tokens_hold() {
        let tmp = tempfile::tempdir().unwrap();
        let ledger = Ledger::at(tmp.path());
        let day = 20_000 * DAY;
        let budget = Budget {
            per_session: 2,
            per_day: 3,
            tokens_per_day: Some(100),
            over: OverBudget::Local,
        };
        assert_eq!(ledger.reserve("a", day + 1, &budget).unwrap(), None);
        assert_eq!(ledger.reserve("a", day + 2, &budget).unwrap(), None);
        assert_eq!(
            ledger.reserve("a", day + 3, &budget).unwrap(),
            Some(Limit::Session(2))
        );
        assert_eq!(ledger.reserve("b", day + 4, &budget).unwrap(), None);
        assert_eq!(
            ledger.reserve("c", day + 5, &budget).unwrap(),
            Some(Limit::Day(3))
        );
        // The next UTC day has its own count; a session's count spans days.
        assert_eq!(ledger.reserve("c", day + DAY, &budget).unwrap(), None);
        assert_eq!(
            ledger.reserve("a", day + DAY, &budget).unwrap(),
            Some(Limit::Session(2))
        );
        ledger.record_tokens("c", day + DAY, 60).unwrap();
        ledger.record_tokens("c", day + DAY, 40).unwrap();
        assert_eq!(
            ledger.reserve("d", day + DAY + 1, &budget).unwrap(),
            Some(Limit::Tokens(100))
        );
        let spent = ledger.spent("c", day + DAY).unwrap();
        assert_eq!(
            spent,
            Spent {
                session_requests: 1,
                day_requests: 1,
                day_tokens: 100
            }
        );
        // A limit of 0 allows nothing.
        let none = Budget {
            per_session: 0,
            ..Budget::default()
        };
        assert_eq!(
            ledger.reserve("e", day + DAY, &none).unwrap(),
            Some(Limit::Session(0))
        );
    }

    #[test]
    fn the_ledger_stays_bounded_and_keeps_what_the_limits_count() {
        let tmp = tempfile::tempdir().unwrap();
        let ledger = Ledger::at(tmp.path());
        let budget = Budget {
            per_session: u64::MAX,
            per_day: u64::MAX,
            ..Budget::default()
        };
        let day = 20_000 * DAY;
        // A ledger just under its size, all of days ago, and a few lines of yesterday.
        let mut old = String::new();
        let mut t = day - 3 * DAY;
        while old.len() < TRIM_FROM as usize - 100 {
            old.push_str(&format!("{t} old request\n"));
            t += 1;
        }
        old.push_str(&format!("{} yesterday request\n", day - 10));
        std::fs::write(tmp.path().join("spend.log"), &old).unwrap();
        // The appends that take it past its size trim it to the last two days.
        for i in 0..10 {
            ledger.reserve("new", day + i, &budget).unwrap();
        }
        let len = std::fs::metadata(tmp.path().join("spend.log"))
            .unwrap()
            .len();
        assert!(len < 1024, "{len}");
        let spent = ledger.spent("new", day + 10).unwrap();
        assert_eq!((spent.session_requests, spent.day_requests), (10, 10));
        assert_eq!(ledger.spent("old", day).unwrap().session_requests, 0);
        assert_eq!(ledger.spent("yesterday", day).unwrap().session_requests, 1);
    }
}
