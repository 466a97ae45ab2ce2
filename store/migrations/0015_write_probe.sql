-- /readyz checks that the database can still grow by writing a two-page
-- row here and deleting it in the same transaction (store.ProbeWrite):
-- an empty transaction succeeds even on a full disk. Always empty.
CREATE TABLE write_probe (
  id   INTEGER PRIMARY KEY,
  data BLOB NOT NULL
) STRICT;
