"""`python -m thoughtgraph`: the same as the `thoughtgraph` command."""

from thoughtgraph.cli.main import main

raise SystemExit(main())
