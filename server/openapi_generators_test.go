package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/oasdiff/yaml"

	"kycd/server"
)

// The OpenAPI description is meant to be fed to client generators as it
// is. tools/clientgen (run by .ci/run) generates a Go client with
// oapi-codegen and TypeScript types with openapi-typescript, compiles both
// and tours a real kycd with them. This test holds the description to the
// rules that run found, so a change that would break a generator fails
// here, in go test, without Node or the generator.

func specTree(t *testing.T) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// walk calls fn for every object in v with its JSON pointer-like path.
func walk(path string, v any, fn func(path string, m map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(path, x)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(path+"/"+k, x[k], fn)
		}
	case []any:
		for i, e := range x {
			walk(fmt.Sprintf("%s/%d", path, i), e, fn)
		}
	}
}

// schemaTypes returns a schema's type(s), from "type": "x" or ["x", "null"].
func schemaTypes(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// inSchema reports whether a path points into a schema (not into an
// example, where any JSON is data).
func inSchema(path string) bool {
	return !strings.Contains(path, "/example") && !strings.Contains(path, "/examples")
}

func TestOpenAPIForClientGenerators(t *testing.T) {
	doc := specTree(t)
	walk("", doc, func(path string, m map[string]any) {
		if !inSchema(path) {
			return
		}
		types := schemaTypes(m)
		// oapi-codegen: "unhandled Schema type" for a type list of more
		// than one type besides null; write anyOf instead.
		if nonNull := slices.DeleteFunc(slices.Clone(types), func(s string) bool { return s == "null" }); len(nonNull) > 1 {
			t.Errorf("%s: type %v (more than one type besides null); use anyOf", path, types)
		}
		// oapi-codegen turns null in an enum into a constant "<nil>";
		// write anyOf [{$ref: the enum}, {type: 'null'}].
		if enum, ok := m["enum"].([]any); ok && slices.Contains(enum, any(nil)) {
			t.Errorf("%s: enum lists null; use anyOf [{$ref}, {type: 'null'}]", path)
		}
		// oapi-codegen makes a number without a format a float32.
		if slices.Contains(types, "number") && m["format"] != "double" {
			t.Errorf("%s: number without format: double (oapi-codegen would make it float32)", path)
		}
		// openapi-typescript makes {type: object} with nothing else a
		// Record<string, never>: nothing may be put in it.
		if slices.Contains(types, "object") {
			_, props := m["properties"]
			_, extra := m["additionalProperties"]
			_, one := m["oneOf"]
			_, any := m["anyOf"]
			_, all := m["allOf"]
			if !props && !extra && !one && !any && !all {
				t.Errorf("%s: free-form object; give it properties, additionalProperties or a oneOf", path)
			}
		}
	})
	// openapi-typescript (default settings) makes a property with a
	// default required, also in request bodies: say defaults in words.
	walk("/components/schemas", doc["components"].(map[string]any)["schemas"], func(path string, m map[string]any) {
		if _, ok := m["default"]; ok && inSchema(path) {
			t.Errorf("%s: default in a schema (openapi-typescript makes the property required)", path)
		}
	})

	// oapi-codegen prunes the components that only webhooks use, then
	// refers to them from the webhook types it writes: every component the
	// webhooks use must be reachable from the paths too.
	fromPaths, fromHooks := refsFrom(doc, "paths"), refsFrom(doc, "webhooks")
	for ref := range fromHooks {
		if !fromPaths[ref] {
			t.Errorf("%s is used by webhooks only (oapi-codegen prunes it and fails to compile)", ref)
		}
	}

	// A signing secret is shown in the create and rotate answers only
	// (an endpoint's, the callback secret's), so their schema requires it (a typed client gets a string, not an
	// optional).
	for _, op := range []struct{ path, method, status string }{
		{"/v1/webhook-endpoints", "post", "201"}, {"/v1/webhook-endpoints/{id}/rotate-secret", "post", "200"},
		{"/v1/callback-secret/rotate", "post", "200"},
	} {
		s := resolve(doc, responseSchema(doc, op.path, op.method, op.status))
		if req, _ := s["required"].([]any); !slices.Contains(req, any("secret")) {
			t.Errorf("%s %s → %s: secret is not required", op.method, op.path, op.status)
		}
	}
	if props := resolve(doc, map[string]any{"$ref": "#/components/schemas/WebhookEndpoint"})["properties"].(map[string]any); props["secret"] != nil {
		t.Error("WebhookEndpoint (GET, list, PATCH) has a secret property; only the create and rotate answers show it")
	}

	// The main operations show an example of their answer.
	for _, op := range []struct{ path, method, status string }{
		{"/v1/applicants", "post", "201"}, {"/v1/applicants", "get", "200"}, {"/v1/applicants/{id}", "get", "200"},
		{"/v1/kyc-requests", "post", "201"}, {"/v1/kyc-requests", "get", "200"}, {"/v1/kyc-requests/{id}", "get", "200"},
		{"/v1/kyc-requests/{id}/events", "get", "200"}, {"/v1/aml-checks", "post", "201"}, {"/v1/aml-checks", "get", "200"},
		{"/v1/aml-checks/{id}", "get", "200"}, {"/v1/aml-checks/{id}/rescreen", "post", "200"},
		{"/v1/webhook-endpoints", "post", "201"}, {"/v1/webhook-endpoints/{id}/test", "post", "202"},
		{"/v1/webhook-deliveries/{id}", "get", "200"},
	} {
		media := responseMedia(doc, op.path, op.method, op.status)
		if media["example"] == nil && media["examples"] == nil {
			t.Errorf("%s %s → %s has no example", op.method, op.path, op.status)
		}
	}
}

// refsFrom collects every component reachable from doc[root], following
// references into components transitively.
func refsFrom(doc map[string]any, root string) map[string]bool {
	seen := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		walk("", v, func(_ string, m map[string]any) {
			ref, ok := m["$ref"].(string)
			if !ok || seen[ref] {
				return
			}
			seen[ref] = true
			visit(resolve(doc, map[string]any{"$ref": ref}))
		})
	}
	visit(doc[root])
	return seen
}

// resolve follows a local $ref (#/a/b/c) to its object.
func resolve(doc map[string]any, m map[string]any) map[string]any {
	ref, ok := m["$ref"].(string)
	if !ok {
		return m
	}
	var cur any = doc
	for _, p := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		cur = cur.(map[string]any)[strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")]
	}
	return cur.(map[string]any)
}

// responseMedia is the application/json media of an operation's answer
// with that status; empty when there is none.
func responseMedia(doc map[string]any, path, method, status string) map[string]any {
	item, _ := doc["paths"].(map[string]any)[path].(map[string]any)
	op, _ := item[method].(map[string]any)
	responses, _ := op["responses"].(map[string]any)
	res, _ := responses[status].(map[string]any)
	if res == nil {
		return map[string]any{}
	}
	content, _ := resolve(doc, res)["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	if media == nil {
		return map[string]any{}
	}
	return media
}

func responseSchema(doc map[string]any, path, method, status string) map[string]any {
	s, _ := responseMedia(doc, path, method, status)["schema"].(map[string]any)
	if s == nil {
		return map[string]any{}
	}
	return s
}
