"""A team index served from PostgreSQL with pgvector (the optional extra ``groundls[team]``).

CI builds the index as usual, then publishes it (``groundls index --store postgresql://…``):
:mod:`.publish` copies what changed into the served tables, whose schema lives in the numbered
migrations of :mod:`.schema`. Editors read it with a read-only role (:mod:`.access`: roles and
row-level security by path) through :class:`.store.ServedStore`, which keeps the editor's own
small SQLite overlay for the files it changed, as a shared base file does.
"""
