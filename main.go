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

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cmd.Main(ctx, version, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
