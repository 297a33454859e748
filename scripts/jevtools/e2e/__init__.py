"""The real-client end-to-end suites (one module per client, run by the scripts/e2e-* shims),
their shared harness and turns, and the loopback model-API mocks they start
(`mock_*`, on model_mock and jevtools.loopback); the archive server; the Windows
resolution check (scripts/windows-resolution)."""
