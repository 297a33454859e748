//! The `command` scorer backend (issue 4).
