"""Walking the workspace and reading its files: ignore rules, excludes, secrets redacted, and document readers."""
