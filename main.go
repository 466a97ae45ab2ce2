// Command kycd is a self-hosted identity-verification (KYC) and AML
// screening service in one binary on one SQLite file.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"kycd/cmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The version comes from kycd/internal/buildinfo (set there, or with
	// -ldflags -X by tools/release).
	code := cmd.Main(ctx, "", os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
