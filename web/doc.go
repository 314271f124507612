// Package web is the workbench at /: a page for people (sign in with an API key, e-invoices,
// conversions, PDF tools, receipts) that calls the service's own API from the browser. Its
// files are embedded, need no build step and no network: plain HTML, CSS and JavaScript
// modules, served with a strict Content-Security-Policy.
package web
