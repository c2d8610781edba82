"""The rules engine: poker rules as pure functions and data. It does no I/O (no files, clocks,
OS randomness or network; tests/engine/test_no_io.py); its callers read files and pass it text."""
