-- As SQLite's 0023 (read its comments): installation admins and the
-- console's watch-list imports.
ALTER TABLE users ADD COLUMN installation_admin BIGINT NOT NULL DEFAULT 0 CHECK (installation_admin IN (0, 1));

CREATE TABLE list_imports (
  id          TEXT COLLATE "C" PRIMARY KEY,
  source      TEXT COLLATE "C" NOT NULL,
  kind        TEXT COLLATE "C" NOT NULL CHECK (kind IN ('sanctions', 'pep', 'adverse_media')),
  format      TEXT COLLATE "C" NOT NULL,
  provider    TEXT COLLATE "C" NOT NULL,
  forced      BIGINT NOT NULL CHECK (forced IN (0, 1)),
  files       TEXT COLLATE "C" NOT NULL,
  state       TEXT COLLATE "C" NOT NULL CHECK (state IN ('running', 'imported', 'unchanged', 'failed', 'interrupted')),
  phase       TEXT COLLATE "C" NOT NULL,
  bytes       BIGINT NOT NULL DEFAULT 0,
  total       BIGINT NOT NULL,
  entities    BIGINT NOT NULL DEFAULT 0,
  version_id  TEXT COLLATE "C" REFERENCES list_versions (id) ON DELETE SET NULL DEFERRABLE,
  error       TEXT COLLATE "C",
  actor_id    TEXT COLLATE "C" REFERENCES users (id) ON DELETE SET NULL DEFERRABLE,
  created_at  TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL,
  finished_at TEXT COLLATE "C"
);

CREATE UNIQUE INDEX list_imports_running_idx ON list_imports (state) WHERE state = 'running';
