-- Installation admins and the console's watch-list imports.

-- An admin with this flag may change what every organization of the
-- installation shares: the watch lists (PermInstallation). Only the
-- machine's operator sets it (kycd users installation-admin); the console
-- shows it and cannot change it.
ALTER TABLE users ADD COLUMN installation_admin INTEGER NOT NULL DEFAULT 0 CHECK (installation_admin IN (0, 1));

-- Imports of list files uploaded through the console, run in the
-- background. Their progress lives here, not in memory: with PostgreSQL a
-- fleet serves the console, and the next poll may reach another instance.
-- A running row's updated_at is its heartbeat: one not updated for 30 s
-- belongs to an instance that died, and counts as interrupted.
CREATE TABLE list_imports (
  id          TEXT PRIMARY KEY,                          -- lim_<ulid>
  source      TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('sanctions', 'pep', 'adverse_media')),
  format      TEXT NOT NULL,
  provider    TEXT NOT NULL,                             -- as typed; '' for the format's default
  forced      INTEGER NOT NULL CHECK (forced IN (0, 1)), -- import even when the files are unchanged
  files       TEXT NOT NULL,                             -- JSON: [{"name": …, "size": …}] as uploaded
  state       TEXT NOT NULL CHECK (state IN ('running', 'imported', 'unchanged', 'failed', 'interrupted')),
  phase       TEXT NOT NULL,                             -- checking, importing, loading, done
  bytes       INTEGER NOT NULL DEFAULT 0,                -- read in this phase
  total       INTEGER NOT NULL,                          -- bytes of all the files
  entities    INTEGER NOT NULL DEFAULT 0,                -- stored so far
  version_id  TEXT REFERENCES list_versions (id) ON DELETE SET NULL, -- the new version, or the unchanged one
  error       TEXT,
  actor_id    TEXT REFERENCES users (id) ON DELETE SET NULL,        -- who uploaded the files
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  finished_at TEXT
) STRICT;

-- At most one import runs per installation, so two admins cannot race
-- the same source.
CREATE UNIQUE INDEX list_imports_running_idx ON list_imports (state) WHERE state = 'running';
