"""The pull-request check's development test (`suite`, run by scripts/action/test) and the fake
GitHub it runs against. The check itself, scripts/action/preflight.py, ships with the action and
is not part of this package."""
