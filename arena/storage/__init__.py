"""Storage: hand logs, results store and replay."""
