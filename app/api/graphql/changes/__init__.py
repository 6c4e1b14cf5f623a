"""The change log: a thought's history and every change after a revision."""
