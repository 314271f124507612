// Package server is Papierkram's HTTP layer: routes, authentication, quotas, body limits,
// errors as RFC 9457 problems, the OpenAPI document, metrics and access logs.
//
// Handlers are thin: decode the request, call one domain function, encode the result.
// Domain errors carry a fault.Code; this package maps codes to HTTP statuses in one place
// (problem.go).
package server
