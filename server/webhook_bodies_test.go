package server_test

import (
	"testing"

	"kycd/store"
)

// TestDeliveredAMLBodiesMatchDescription: an organization that does not
// screen PEP gets not_screened for it; the AML events delivered to its
// receiver (checked against the description's webhooks by decisionEnv's
// receiver) and the delivery GETs that carry them (checked by call) must
// match the description. Issue 23 item 21: AmlEvent's results[].status
// enum was clear|hit|error.
func TestDeliveredAMLBodiesMatchDescription(t *testing.T) {
	d := newDecisionEnv(t)
	if err := d.store.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetAMLKinds(d.A.ID, []string{"sanctions"}) }); err != nil {
		t.Fatal(err)
	}
	c := d.mustAML(d.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Politician","monitoring":true}`)
	if rs := results(t, c); rs["pep"]["status"] != "not_screened" {
		t.Fatalf("PEP left out: %v", c)
	}
	d.runJobs()
	d.mu.Lock()
	got := d.events[c["id"].(string)]
	d.mu.Unlock()
	if len(got) == 0 {
		t.Fatalf("no AML event delivered for %s", c["id"])
	}
	list := d.call("GET", "/v1/webhook-deliveries?eventType=svc.aml_check.completed", d.A.SandboxKey, "").json(t)
	data := list["data"].([]any)
	if len(data) == 0 {
		t.Fatal("no svc.aml_check.completed delivery listed")
	}
	for _, x := range data {
		d.call("GET", "/v1/webhook-deliveries/"+x.(map[string]any)["id"].(string), d.A.SandboxKey, "") // checked by call
	}
}
