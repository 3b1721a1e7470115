// Package api is Hearth's HTTP layer: the route table, authentication and
// scope middleware, JSON decoding, the one error path, and the OpenAPI
// document generated from the same route table that builds the router.
// Handlers stay thin: decode, call core, encode.
package api
