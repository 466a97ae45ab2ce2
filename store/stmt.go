package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps one prepared statement per query text. Without it
// modernc parses every query on every call, which was the largest single
// cost of a GET in the load benchmark. database/sql prepares a cached
// *sql.Stmt lazily on each pooled connection and reuses it from then on.
type stmtCache struct {
	db     *sql.DB
	m      sync.Map // query → *sql.Stmt
	wanted sync.Map // query → struct{}: to prepare when the connection is free
}

func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if v, ok := c.m.Load(query); ok {
		return v.(*sql.Stmt), nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if v, loaded := c.m.LoadOrStore(query, st); loaded {
		st.Close()
		return v.(*sql.Stmt), nil
	}
	return st, nil
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.m.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
}

// readPool runs single-statement reads on the reader pool with cached
// statements.
type readPool struct{ c *stmtCache }

func (p readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.c.get(ctx, query)
	if err != nil {
		// sql.Row carries no error of ours; fall back to the unprepared
		// path, which reports the same error from Scan.
		return p.c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (p readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// txPool runs statements inside the batch transaction. The writer pool has
// one connection and the transaction holds it, so a statement cannot be
// prepared from here: a query seen for the first time runs unprepared and
// is noted, and the commit loop prepares it between batches (prepareWanted).
type txPool struct {
	tx *sql.Tx
	c  *stmtCache
}

func (p txPool) stmt(query string) *sql.Stmt {
	if p.c == nil {
		return nil // PostgreSQL: pgx caches prepared statements per connection
	}
	if v, ok := p.c.m.Load(query); ok {
		return p.tx.Stmt(v.(*sql.Stmt)) // already prepared on this connection
	}
	p.c.wanted.Store(query, struct{}{})
	return nil
}

// txPool with no cache runs every statement on the transaction directly.

func (p txPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.tx.QueryRowContext(ctx, query, args...)
}

func (p txPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.tx.QueryContext(ctx, query, args...)
}

func (p txPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmt(query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.tx.ExecContext(ctx, query, args...)
}

// prepareWanted prepares the queries transactions ran unprepared; the
// commit loop calls it when no transaction holds the writer connection.
func (c *stmtCache) prepareWanted() error {
	if c == nil {
		return nil
	}
	var err error
	c.wanted.Range(func(k, _ any) bool {
		c.wanted.Delete(k)
		_, err = c.get(context.Background(), k.(string))
		return err == nil
	})
	return err
}
