// Package cdpwait waits in a browser tab for a JavaScript condition across
// page loads. chromedp's Poll evaluates in the page's current execution
// context; when the page navigates while it polls (a form's redirect, a
// page that reloads itself until a job is done) Chromium destroys that
// context and Poll fails with "Cannot find context with specified id"
// although nothing is wrong. Until retries such failures until its deadline,
// so browser tests fail on what the page does, not on when it reloads.
package cdpwait

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Until polls expr in the tab of ctx until it is true or d has passed.
func Until(ctx context.Context, expr string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%s: not true within %s", expr, d)
		}
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(left)))
		if err == nil || !Transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Transient reports whether err is a page load racing an evaluation: the
// execution context it ran in is gone, and the next one will answer.
func Transient(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Cannot find context with specified id") ||
		strings.Contains(s, "Execution context was destroyed") ||
		strings.Contains(s, "Inspected target navigated or closed")
}
