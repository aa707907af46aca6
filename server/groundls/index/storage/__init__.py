"""The store and its layers: SQLite connections and migrations, writes and reads, keyword terms, a shared base and its overlay, the ANN graph and vector copies."""
