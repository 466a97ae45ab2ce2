-- Streaming list imports (aml.Import): a version's entities are written in
-- many short transactions, so an import of a multi-gigabyte OpenSanctions
-- export never holds the write lock for minutes. Until its last
-- transaction makes it the source's active version, the version is
-- incomplete: screening, monitoring and `kycd lists list` ignore it, and
-- the next import of the source deletes it when the import that wrote it
-- died half-way.
ALTER TABLE list_versions ADD COLUMN complete INTEGER NOT NULL DEFAULT 1 CHECK (complete IN (0, 1));
