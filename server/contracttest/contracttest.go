// Package contracttest holds tests to the API's published contract (the
// OpenAPI description server.OpenAPIYAML) outside package server: a
// webhook receiver in any package's test checks each delivered body with
// CheckEvent. Tests only; it pulls in the description's validator.
package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"kycd/server"
)

// description is the parsed, validated OpenAPI description.
var description = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPIYAML)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	return doc, nil
})

// CheckEvent checks a delivered webhook: its X-Svc-Event header (when h
// is not nil) names the body's eventType, and the body is valid against
// the request body the description's webhooks section gives that event
// type. An event type the section does not name is an error: receivers
// generated from the description would not know it.
func CheckEvent(h http.Header, body []byte) error {
	doc, err := description()
	if err != nil {
		return fmt.Errorf("load the OpenAPI description: %w", err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("webhook body is not JSON: %w", err)
	}
	obj, _ := v.(map[string]any)
	typ, _ := obj["eventType"].(string)
	if h != nil && h.Get("X-Svc-Event") != typ {
		return fmt.Errorf("X-Svc-Event %q, body eventType %q", h.Get("X-Svc-Event"), typ)
	}
	item := doc.Webhooks[typ]
	if item == nil || item.Post == nil || item.Post.RequestBody == nil {
		return fmt.Errorf("event type %q is not in the description's webhooks", typ)
	}
	mt := item.Post.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return fmt.Errorf("webhook %q has no JSON body schema", typ)
	}
	if err := mt.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("%s body does not match the description: %w\nbody: %s", typ, err, body)
	}
	return nil
}
