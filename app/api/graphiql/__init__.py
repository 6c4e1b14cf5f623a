"""GraphiQL served by the service: the page and every file it loads ship in this package
(``assets/``, copied from npm by scripts/build-graphiql), so it works without internet."""
