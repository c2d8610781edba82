"""What the arena gets from the machine it runs on, a module per job: files read from disk
(`configfile`: config TOML, `phhfile`: PHH hand histories), fresh secrets from the operating
system (`secret`), where the bot SDK is (`sdk`), and the process's settings: the interpreter's
garbage collector and GIL switch interval (`process`), gRPC's I/O path (`grpc_io`) and which
fast paths it takes (`fastpaths`); and hosted bots: their packages (`botpackage`: an
`arena-bot.toml`), the bubblewrap sandbox each instance runs in (`sandbox`) and its control
groups where the machine lets the arena make them (`cgroups`)."""
