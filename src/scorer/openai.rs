//! The `openai` scorer backend (issue 4).
