"""What the pure rules engine gets from the machine it runs on: files read from disk (config
TOML, PHH hand histories) and fresh secrets from the operating system; and the process's
settings: which of gRPC's I/O paths it uses and which fast paths it takes."""
