// Package netguard is the outbound-network policy for every request the server makes on a
// caller's behalf (timestamp authorities, webhooks, renderer sub-resources): only http and
// https, and never loopback, private, link-local, multicast or unspecified addresses unless
// the operator allows a range explicitly. It exists so that an API caller cannot use the
// server to reach the server's own network.
package netguard
