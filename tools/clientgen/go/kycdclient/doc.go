// Package kycdclient is the Go client of kycd that oapi-codegen v2.8.2
// generates from server/openapi/openapi.yaml (-generate types,client,
// default settings) into kycd.gen.go. The generated file is not kept in
// the repository: ../../run makes it, builds the tour against it and runs
// the tour, so what is tested is what the generator makes of today's
// description.
package kycdclient
