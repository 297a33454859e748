//! SessionEnd: remove what the session left in the private store, inside the 1.5 s the host
//! gives all SessionEnd hooks together.

use std::time::Instant;

use crate::hook::event::Event;
use crate::hook::failure::Failure;
use crate::hook::{Context, Reply, SESSION_END_BUDGET};

/// SessionEnd: remove everything this session left, inside the shared 1.5 s budget.
pub fn end(ctx: &Context<'_>, event: &Event) -> Result<Reply, Failure> {
    let start = Instant::now();
    let Some(store) = ctx.existing_store()? else {
        return Ok(Reply::quiet("nothing stored"));
    };
    let session = store.session(event.session_key());
    if !session.dir().exists() {
        return Ok(Reply::quiet("nothing stored"));
    }
    if session.remove_all(start + SESSION_END_BUDGET) {
        Ok(Reply::quiet("session removed"))
    } else {
        Ok(Reply::quiet(
            "session partly removed; the sweep finishes it",
        ))
    }
}
