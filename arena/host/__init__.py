"""What the pure rules engine gets from the machine it runs on: its compiled build, files read
from disk (config TOML, PHH hand histories) and fresh secrets from the operating system; and
which of gRPC's I/O paths the process uses."""
