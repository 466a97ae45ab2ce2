package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// HealthcheckCmd asks a running kycd whether it is up. It exists for
// container images without a shell or curl (the Dockerfile's
// HEALTHCHECK runs it in a scratch image): exit 0 when GET /healthz
// answers 200 with status ok, 1 otherwise.
type HealthcheckCmd struct {
	Addr    string        `default:"127.0.0.1:8080" env:"KYCD_ADDR" help:"The address serve listens on (serve's --addr); a wildcard host (0.0.0.0, ::, empty) is asked on loopback."`
	Timeout time.Duration `default:"5s" help:"How long to wait for the answer."`
}

// Run calls /healthz on the address serve listens on.
func (c *HealthcheckCmd) Run(e *env) error {
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", c.Addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(e.ctx, c.Timeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	defer res.Body.Close()
	var body struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	if err != nil {
		return fmt.Errorf("unhealthy: %s: %w", url, err)
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal(b, &body) != nil || body.Status != "ok" {
		return fmt.Errorf("unhealthy: %s answered %d %.200q", url, res.StatusCode, b)
	}
	fmt.Fprintf(e.stdout, "ok: kycd %s at %s\n", body.Version, url)
	return nil
}
