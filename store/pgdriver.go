package store

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// pgConnector wraps pgx's database/sql connector so that the store keeps
// one SQL text for both engines: queries are written with SQLite's
// placeholders (? and ?NNN) and rewritten here, once per query text, to
// PostgreSQL's $N. Arguments are converted as the SQLite driver converts
// them (bool to 0/1, time.Time to text), because the PostgreSQL schema
// keeps SQLite's column types (integers for flags, text for times).
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: conn.(*stdlib.Conn)}, nil
}

// pgConn is a pgx connection that speaks SQLite's placeholders. It embeds
// the pgx connection for everything else (transactions, ping, reset).
type pgConn struct{ *stdlib.Conn }

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// CheckNamedValue converts arguments as modernc.org/sqlite does, so that a
// value means the same on both engines.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case bool:
		if v {
			nv.Value = int64(1)
		} else {
			nv.Value = int64(0)
		}
	case time.Time:
		nv.Value = v.Format(sqliteTimeFormat)
	}
	return nil
}

// sqliteTimeFormat is how modernc.org/sqlite writes a time.Time argument.
const sqliteTimeFormat = "2006-01-02 15:04:05.999999999-07:00"

// rebound caches rebind's output: the store's queries are a few hundred
// fixed texts (plus the IN lists some build), so the map stays small.
var rebound sync.Map // query → rewritten query

// rebind rewrites SQLite placeholders to PostgreSQL's. It follows SQLite's
// numbering: ?NNN is parameter NNN, and a bare ? is one more than the
// largest number used before it. Quoted strings, quoted identifiers,
// dollar-quoted bodies and comments are copied unchanged.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	if v, ok := rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	maxN := 0
	for i := 0; i < len(query); {
		ch := query[i]
		switch {
		case ch == '\'' || ch == '"':
			j := i + 1
			for j < len(query) {
				if query[j] == ch {
					if j+1 < len(query) && query[j+1] == ch { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(query))
			b.WriteString(query[i:j])
			i = j
		case ch == '-' && i+1 < len(query) && query[i+1] == '-':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j
		case ch == '$' && i+1 < len(query) && query[i+1] == '$':
			j := strings.Index(query[i+2:], "$$")
			end := len(query)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(query[i:end])
			i = end
		case ch == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			n := maxN + 1
			if j > i+1 {
				n, _ = strconv.Atoi(query[i+1 : j])
			}
			maxN = max(maxN, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j
		default:
			b.WriteByte(ch)
			i++
		}
	}
	out := b.String()
	rebound.Store(query, out)
	return out
}
