package cmd_test

import (
	"os"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestREADMENamesEveryEventType is issue 23 item 17: the README names
// every event type an endpoint can subscribe to, and says what an empty
// list subscribes to.
func TestREADMENamesEveryEventType(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, typ := range kyc.EventTypes {
		if !strings.Contains(readme, "| `"+string(typ)+"` |") {
			t.Errorf("the README's table of event types lacks %s", typ)
		}
	}
	if !strings.Contains(readme, "an empty or missing list means every type") {
		t.Error("the README does not say what an empty eventTypes list means")
	}
}
