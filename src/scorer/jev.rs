//! The `jev` scorer backend (issue 4).
