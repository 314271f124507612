// Package fault is Papierkram's one error type: an error with a stable machine code.
//
// Domain packages return *fault.Error values (or wrap them with %w); they know nothing about
// HTTP. The server maps each Code to an HTTP status in one place and renders it as an
// RFC 9457 problem. The CLI maps codes to exit statuses the same way.
package fault
